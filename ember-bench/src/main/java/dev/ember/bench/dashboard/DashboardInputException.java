package dev.ember.bench.dashboard;

/** An input of the dashboard (the JMH results or the torch peer's figures) is missing or not what was expected; the message says which file and where. */
public final class DashboardInputException extends RuntimeException {
    public DashboardInputException(String message) {
        super(message);
    }

    public DashboardInputException(String message, Throwable cause) {
        super(message, cause);
    }
}
