package dev.ember.logging;

/**
 * Which compilation a log line or trace event belongs to, written as PyTorch writes it: {@code 0/1} is the
 * second compilation (the first recompile) of the first method Ember compiled; {@code 0/1_2} is the third
 * attempt at it, after two restarts of the analysis.
 *
 * @param frameId        the method (one per code object Ember compiles, numbered in the order met)
 * @param frameCompileId how many times this method was compiled before (0 = first compile)
 * @param attempt        restarts of this compilation's analysis before this one (0 = first try)
 */
public record CompileId(int frameId, int frameCompileId, int attempt) {

    public CompileId {
        if (frameId < 0 || frameCompileId < 0 || attempt < 0) {
            throw new IllegalArgumentException("compile id parts must be >= 0, got " + frameId + "/" + frameCompileId + "_" + attempt);
        }
    }

    /** The first attempt of a compilation. */
    public static CompileId of(int frameId, int frameCompileId) {
        return new CompileId(frameId, frameCompileId, 0);
    }

    /** The same compilation, at another attempt. */
    public CompileId withAttempt(int attempt) {
        return new CompileId(frameId, frameCompileId, attempt);
    }

    /** The name of this compilation's folder in a report: {@code 0_1_0}. */
    public String directoryName() {
        return frameId + "_" + frameCompileId + "_" + attempt;
    }

    /** {@code 0/1}, or {@code 0/1_2} from the second restart on. */
    @Override
    public String toString() {
        return frameId + "/" + frameCompileId + (attempt == 0 ? "" : "_" + attempt);
    }
}
