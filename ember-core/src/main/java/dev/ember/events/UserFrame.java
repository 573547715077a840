package dev.ember.events;

/**
 * A position in the user's code: class, method, source file and line, bytecode index, and the
 * text of that line when the .java file could be found.
 */
public record UserFrame(String className, String methodName, String fileName, int line, int bci, String sourceText) {

    /** {@code Corpus.java:42 in Corpus.addTwice} */
    @Override
    public String toString() {
        String simple = className.substring(className.lastIndexOf('.') + 1);
        return (fileName == null ? "<unknown>" : fileName) + ":" + line + " in " + simple + "." + methodName;
    }
}
