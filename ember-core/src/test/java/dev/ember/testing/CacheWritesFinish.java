package dev.ember.testing;

import dev.ember.inductor.cache.ArtifactCache;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * After every test, waits for the disk-cache entries it handed to the background writer
 * ({@link ArtifactCache#putLater}): a test's temporary cache folder is deleted when the test ends,
 * and a write still running into it would make the deletion fail, or write into the next test's
 * folder's parent. Registered for every test (META-INF/services, junit-platform.properties).
 */
public final class CacheWritesFinish implements AfterEachCallback {
    @Override
    public void afterEach(ExtensionContext context) { ArtifactCache.awaitWrites(); }
}
