package dev.ember.startup;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The class data archive's training run compiles through the artifact cache (cold, then from it) in a
 * folder of its own: the user's cache folder is neither read nor written, and the training's
 * folder is gone afterwards.
 */
class StartupTrainingTest {
    @TempDir
    Path usersCache;

    private static List<Path> trainingFolders() throws IOException {
        try (Stream<Path> s = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            return s.filter(p -> p.getFileName().toString().startsWith("ember-startup-training")).toList();
        }
    }

    @Test
    void trainsInATemporaryArtifactCacheAndLeavesTheUsersAlone() throws Exception {
        String before = System.getProperty("ember.cache.dir");
        List<Path> foldersBefore = trainingFolders();
        System.setProperty("ember.cache.dir", usersCache.toString());
        try {
            StartupTraining.main(new String[0]);
            assertEquals(usersCache.toString(), System.getProperty("ember.cache.dir"), "the user's cache setting is restored");
            try (Stream<Path> s = Files.list(usersCache)) {
                assertEquals(List.of(), s.toList(), "the training wrote into the user's cache folder");
            }
            assertEquals(foldersBefore, trainingFolders(), "the training's own cache folder is left behind");
        } finally {
            if (before == null) System.clearProperty("ember.cache.dir");
            else System.setProperty("ember.cache.dir", before);
        }
    }
}
