package dev.ember.debug.fuzz;

import java.lang.reflect.InvocationTargetException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A compiled program class: its function ({@code fn()}) and its input factory ({@code inputs()}). */
public record LoadedProgram(Program program, Object fn, Class<?> cls) {
    /** Compiles and loads programs in one javac task. */
    public static List<LoadedProgram> load(List<Program> programs) {
        Map<String, String> sources = new LinkedHashMap<>();
        for (Program p : programs) sources.put(p.className(), p.source(p.className()));
        Map<String, Class<?>> classes = ProgramCompiler.compile(sources);
        List<LoadedProgram> out = new ArrayList<>();
        for (Program p : programs) out.add(new LoadedProgram(p, invoke(classes.get(p.className()), "fn"), classes.get(p.className())));
        return out;
    }

    /** Fresh arguments: the same values, layouts and aliasing on every call. */
    public Object[] inputs() { return (Object[]) invoke(cls, "inputs"); }

    private static Object invoke(Class<?> cls, String method) {
        try {
            return cls.getMethod(method).invoke(null);
        } catch (InvocationTargetException e) {
            throw new IllegalStateException(cls.getName() + "." + method + "() failed: " + e.getCause(), e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(cls.getName() + " has no public static " + method + "()", e);
        }
    }
}
