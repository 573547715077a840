package dev.ember.dynamo;

/**
 * A graph break after which no resume method can be made ({@code this} under construction is live,
 * a value cannot be rebuilt, a super call cannot move to another class): the frame then runs
 * eagerly for these inputs, as before partial graphs existed.
 */
final class CannotResume extends RuntimeException {
    CannotResume(String message) { super(message); }
}
