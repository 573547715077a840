package dev.ember.export;

import java.io.IOException;
import java.nio.file.Path;

/** A file {@link ExportedProgram#load} cannot read as a program: one line naming the file, the entry and the problem. */
public final class ProgramFileException extends IOException {
    public ProgramFileException(Path file, String problem) { super(file + ": " + problem); }

    public ProgramFileException(Path file, String problem, Throwable cause) { super(file + ": " + problem, cause); }
}
