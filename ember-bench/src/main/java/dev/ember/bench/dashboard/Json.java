package dev.ember.bench.dashboard;

import java.util.List;
import java.util.Map;

/** A JSON object read by {@link dev.ember.logging.JsonReader}, with typed getters whose errors say where. */
record Json(Map<String, Object> fields, String where) {

    @SuppressWarnings("unchecked")
    static Json object(Object value, String where) {
        if (!(value instanceof Map<?, ?> m)) throw new DashboardInputException(where + ": expected a JSON object, found " + describe(value));
        return new Json((Map<String, Object>) m, where);
    }

    boolean has(String key) {
        return fields.containsKey(key) && fields.get(key) != null;
    }

    Object get(String key) {
        if (!fields.containsKey(key)) throw new DashboardInputException(where + ": no \"" + key + "\"");
        return fields.get(key);
    }

    String string(String key) {
        if (get(key) instanceof String s) return s;
        throw new DashboardInputException(where + ": \"" + key + "\" should be a string, found " + describe(fields.get(key)));
    }

    double number(String key) {
        if (get(key) instanceof Number n) return n.doubleValue();
        throw new DashboardInputException(where + ": \"" + key + "\" should be a number, found " + describe(fields.get(key)));
    }

    Json object(String key) {
        return object(get(key), where + ", " + key);
    }

    List<?> list(String key) {
        if (get(key) instanceof List<?> l) return l;
        throw new DashboardInputException(where + ": \"" + key + "\" should be an array, found " + describe(fields.get(key)));
    }

    static String describe(Object v) {
        return switch (v) {
            case null -> "null";
            case Map<?, ?> m -> "an object";
            case List<?> l -> "an array";
            case String s -> "the string \"" + s + "\"";
            default -> String.valueOf(v);
        };
    }
}
