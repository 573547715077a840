package dev.ember.build;

import java.io.IOException;
import java.lang.classfile.Attributes;
import java.lang.classfile.ClassElement;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassHierarchyResolver;
import java.lang.classfile.ClassModel;
import java.lang.classfile.ClassTransform;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.CodeModel;
import java.lang.classfile.MethodModel;
import java.lang.classfile.MethodTransform;
import java.lang.classfile.TypeKind;
import java.lang.classfile.attribute.NestHostAttribute;
import java.lang.classfile.attribute.NestMembersAttribute;
import java.lang.classfile.constantpool.ClassEntry;
import java.lang.classfile.instruction.InvokeDynamicInstruction;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.DirectMethodHandleDesc;
import java.lang.constant.MethodTypeDesc;
import java.lang.reflect.AccessFlag;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

import static java.lang.classfile.ClassFile.ACC_FINAL;
import static java.lang.classfile.ClassFile.ACC_PRIVATE;
import static java.lang.classfile.ClassFile.ACC_PUBLIC;
import static java.lang.classfile.ClassFile.ACC_STATIC;
import static java.lang.classfile.ClassFile.ACC_SUPER;
import static java.lang.classfile.ClassFile.ACC_SYNTHETIC;
import static java.lang.constant.ConstantDescs.CD_Object;

/**
 * Turns the lambdas and method references of Ember's own classes into ordinary nested classes at
 * build time, so that starting Ember does not link them one by one.
 *
 * <p>Why: the JVM links each lambda's invokedynamic on its first run through
 * {@code LambdaMetafactory}, which builds a class description in Java code even when the class
 * comes from the class data archive; at start-up that code runs in the interpreter. Ember's op table
 * alone makes about 800 lambdas in its static initialisers, and linking them was about 70% of its
 * first use (JFR samples, session 36): a cost every process pays before its first result. A plain
 * class is loaded (from the archive) without any of that.
 *
 * <p>What: for each {@code invokedynamic} whose bootstrap is {@code LambdaMetafactory.metafactory}
 * (not {@code altMetafactory}: serializable lambdas, marker interfaces and bridges keep the JDK's
 * linkage) in the packages named on the command line, a class {@code Host$$PrespunLambda$N} that
 * implements the interface, holds the captured values in final fields and calls the implementation
 * method with the same argument adaptations the metafactory makes (casts, boxing, unboxing,
 * primitive widening). It is a nestmate of the host (NestHost / NestMembers), so it may call the
 * host's private lambda bodies as the JDK's hidden lambda class does. The invokedynamic becomes
 * {@code invokestatic Gen.make(captured…)}, or for a lambda that captures nothing
 * {@code getstatic Gen.INSTANCE} (one instance, as the metafactory gives). A site this cannot
 * reproduce exactly (a super:: reference, a protected method of another package, a conversion it
 * does not know) is left as it was.
 *
 * <p>Run by Maven after compiling (ember-core/pom.xml), on the JDK running Maven:
 * {@code java LambdaPrespinner.java CLASSES_DIR PACKAGE_DIR…} (package dirs such as
 * {@code dev/ember/ops}, each with its sub-packages). Idempotent: a class already rewritten has no
 * metafactory sites left.
 *
 * <p>Records' {@code equals}, {@code hashCode} and {@code toString} (invokedynamics of
 * {@code ObjectMethods}) are written out the same way ({@link #rewriteRecordMethods}).
 */
public final class LambdaPrespinner {
    private static final ClassDesc CD_LAMBDA_METAFACTORY = ClassDesc.of("java.lang.invoke.LambdaMetafactory");
    private static final String GENERATED = "$$PrespunLambda$";

    private final Path classes;
    private final ClassFile classFile;
    /** Per nest host (internal name), the generated classes to add to its NestMembers. */
    private final Map<String, List<ClassDesc>> newNestMembers = new LinkedHashMap<>();
    private int rewritten, kept, recordMethods, typeSwitches, concatenations;

    private LambdaPrespinner(Path classes) {
        this.classes = classes;
        ClassHierarchyResolver ours = ClassHierarchyResolver.ofResourceParsing(desc -> {
            Path p = classes.resolve(internalName(desc) + ".class");
            try {
                return Files.exists(p) ? Files.newInputStream(p) : null;
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        this.classFile = ClassFile.of(ClassFile.ClassHierarchyResolverOption.of(ours.orElse(ClassHierarchyResolver.defaultResolver())));
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 2) {
            System.err.println("usage: java LambdaPrespinner.java CLASSES_DIR PACKAGE_DIR...");
            System.exit(2);
        }
        Path classes = Path.of(args[0]);
        LambdaPrespinner p = new LambdaPrespinner(classes);
        List<Path> files = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            Path dir = classes.resolve(args[i]);
            if (!Files.isDirectory(dir)) throw new IllegalArgumentException("no package folder " + dir);
            try (Stream<Path> s = Files.walk(dir)) {
                s.filter(f -> f.toString().endsWith(".class") && !f.getFileName().toString().contains(GENERATED)).sorted().forEach(files::add);
            }
        }
        for (Path f : files) {
            p.rewrite(f);
            p.rewriteRecordMethods(f);
            p.rewriteTypeSwitches(f);
            p.rewriteConcatenations(f);
        }
        p.addNestMembers();
        System.out.printf("LambdaPrespinner: %d lambda sites turned into classes, %d left to the JDK's linkage; %d record methods, %d type switches "
                + "and %d string concatenations written out%n", p.rewritten, p.kept, p.recordMethods, p.typeSwitches, p.concatenations);
    }

    private static String internalName(ClassDesc d) {
        String s = d.descriptorString();
        return s.substring(1, s.length() - 1);
    }

    /** One metafactory site, and the class made for it (null when the site is kept). */
    private record Site(ClassDesc generated, MethodTypeDesc factoryType, String samName, MethodTypeDesc samType,
                        DirectMethodHandleDesc impl, MethodTypeDesc instantiated) {
        boolean captures() { return factoryType.parameterCount() > 0; }
        ClassDesc iface() { return factoryType.returnType(); }
    }

    private static boolean isMetafactory(InvokeDynamicInstruction indy) {
        DirectMethodHandleDesc bsm = indy.bootstrapMethod();
        return bsm.owner().equals(CD_LAMBDA_METAFACTORY) && bsm.methodName().equals("metafactory");
    }

    private static final ClassDesc CD_OBJECT_METHODS = ClassDesc.of("java.lang.runtime.ObjectMethods");

    /**
     * A record's {@code equals}, {@code hashCode} and {@code toString} are invokedynamics of
     * {@code ObjectMethods.bootstrap}, linked on first use like a lambda (method handles combined
     * per component, in the interpreter at start-up). Each becomes a call of a private static method
     * of the record written out as that bootstrap's handle computes: equals tests identity, then the
     * class, then the components from the last to the first ({@code Float.compare}/{@code
     * Double.compare} for floating components, {@code Objects.equals} for references); hashCode folds
     * {@code h * 31 + hash(component)} from 0 in component order (the wrappers' hashCode,
     * {@code Objects.hashCode}); toString is {@code Simple[a=1, b=x]} with {@code String.valueOf}'s
     * text. So hash-ordered collections of records iterate exactly as before.
     */
    private void rewriteRecordMethods(Path file) throws IOException {
        recordMethods += writeOutSites(file, "$prespun$", true,
                (indy, host) -> indy.bootstrapMethod().owner().equals(CD_OBJECT_METHODS) && indy.bootstrapMethod().methodName().equals("bootstrap")
                        && recordSiteOf(indy, host) != null ? indy.name().stringValue() : null,
                (code, indy, model) -> {
                    ClassDesc record = model.thisClass().asSymbol();
                    List<DirectMethodHandleDesc> fields = recordSiteOf(indy, record);
                    switch (indy.name().stringValue()) {
                        case "equals" -> writeEquals(code, record, fields);
                        case "hashCode" -> writeHashCode(code, fields);
                        default -> writeToString(code, simpleName(model), (String) indy.bootstrapArgs().get(1), fields);
                    }
                });
    }

    /** A class's simple name as {@code Class.getSimpleName} gives it: a nested class's from its InnerClasses entry. */
    private static String simpleName(ClassModel model) {
        ClassDesc self = model.thisClass().asSymbol();
        return model.findAttribute(Attributes.innerClasses()).flatMap(a -> a.classes().stream()
                        .filter(ic -> ic.innerClass().asSymbol().equals(self)).findFirst())
                .flatMap(ic -> ic.innerName().map(n -> n.stringValue()))
                .orElse(self.displayName());
    }

    /** The part of a site {@link #writeOutSites} writes out: null when it is not one, else what sites sharing a method have in common. */
    private interface SiteKey { String of(InvokeDynamicInstruction indy, ClassDesc host); }

    /** Writes the body of the method that replaces a site (its parameters and result are the site's). */
    private interface SiteBody { void write(CodeBuilder code, InvokeDynamicInstruction indy, ClassModel model); }

    /**
     * Replaces each invokedynamic of {@code file} that {@code keyOf} accepts by a call of a private
     * static method of the class, written by {@code body}; sites with one key share one method,
     * named {@code prefix} and the key ({@code namedByKey}) or its number. Returns the methods written.
     */
    private int writeOutSites(Path file, String prefix, boolean namedByKey, SiteKey keyOf, SiteBody body) throws IOException {
        ClassModel model = classFile.parse(Files.readAllBytes(file));
        ClassDesc host = model.thisClass().asSymbol();
        boolean isInterface = model.flags().has(AccessFlag.INTERFACE);
        Map<String, String> names = new LinkedHashMap<>();                    // key -> method name
        Map<String, InvokeDynamicInstruction> sites = new LinkedHashMap<>();  // method name -> one of its sites
        for (MethodModel m : model.methods()) {
            if (m.code().isEmpty()) continue;
            for (var e : m.code().get()) {
                String key = e instanceof InvokeDynamicInstruction indy ? keyOf.of(indy, host) : null;
                if (key != null && !names.containsKey(key)) {
                    String name = prefix + (namedByKey ? key : String.valueOf(names.size()));
                    names.put(key, name);
                    sites.put(name, (InvokeDynamicInstruction) e);
                }
            }
        }
        if (sites.isEmpty()) return 0;
        byte[] out = classFile.transformClass(model, ClassTransform.transformingMethodBodies((cb, e) -> {
            String key = e instanceof InvokeDynamicInstruction indy ? keyOf.of(indy, host) : null;
            if (key != null) cb.invokestatic(host, names.get(key), ((InvokeDynamicInstruction) e).typeSymbol(), isInterface);
            else cb.with(e);
        }).andThen(ClassTransform.endHandler(clb -> {
            for (var site : sites.entrySet()) {
                clb.withMethodBody(site.getKey(), site.getValue().typeSymbol(), ACC_PRIVATE | ACC_STATIC | ACC_SYNTHETIC,
                        code -> body.write(code, site.getValue(), model));
            }
        })));
        Files.write(file, out);
        return sites.size();
    }

    /** The component getters of a record-method site of {@code record}, or null for a site this does not write out. */
    private static List<DirectMethodHandleDesc> recordSiteOf(InvokeDynamicInstruction indy, ClassDesc record) {
        var args = indy.bootstrapArgs();
        if (args.size() < 2 || !record.equals(args.get(0)) || !(args.get(1) instanceof String)) return null;
        String name = indy.name().stringValue();
        MethodTypeDesc expected = switch (name) {
            case "equals" -> MethodTypeDesc.of(ConstantDescs.CD_boolean, record, CD_Object);
            case "hashCode" -> MethodTypeDesc.of(ConstantDescs.CD_int, record);
            case "toString" -> MethodTypeDesc.of(ConstantDescs.CD_String, record);
            default -> null;
        };
        if (expected == null || !indy.typeSymbol().equals(expected)) return null;
        List<DirectMethodHandleDesc> fields = new ArrayList<>();
        for (int i = 2; i < args.size(); i++) {
            if (!(args.get(i) instanceof DirectMethodHandleDesc d) || d.kind() != DirectMethodHandleDesc.Kind.GETTER || !d.owner().equals(record)) return null;
            fields.add(d);
        }
        if (name.equals("toString") && ((String) args.get(1)).split(";", -1).length != fields.size() && !fields.isEmpty()) return null;
        return fields;
    }

    private static ClassDesc fieldType(DirectMethodHandleDesc getter) { return ClassDesc.ofDescriptor(getter.lookupDescriptor()); }

    private static void loadField(CodeBuilder code, int slot, ClassDesc record, DirectMethodHandleDesc getter) {
        code.aload(slot).getfield(record, getter.methodName(), fieldType(getter));
    }

    private static void writeEquals(CodeBuilder code, ClassDesc record, List<DirectMethodHandleDesc> fields) {
        var notSame = code.newLabel();
        code.aload(0).aload(1).if_acmpne(notSame).iconst_1().ireturn();
        code.labelBinding(notSame);
        var isRecord = code.newLabel();
        code.aload(1).instanceOf(record).ifne(isRecord).iconst_0().ireturn();
        code.labelBinding(isRecord);
        code.aload(1).checkcast(record).astore(2);
        var differ = code.newLabel();
        for (int i = fields.size() - 1; i >= 0; i--) {   // the bootstrap's handle tests the last component first
            DirectMethodHandleDesc f = fields.get(i);
            ClassDesc t = fieldType(f);
            loadField(code, 0, record, f);
            loadField(code, 2, record, f);
            switch (t.descriptorString()) {
                case "F" -> code.invokestatic(ClassDesc.of("java.lang.Float"), "compare", MethodTypeDesc.of(ConstantDescs.CD_int, t, t)).ifne(differ);
                case "D" -> code.invokestatic(ClassDesc.of("java.lang.Double"), "compare", MethodTypeDesc.of(ConstantDescs.CD_int, t, t)).ifne(differ);
                case "J" -> code.lcmp().ifne(differ);
                case "I", "S", "B", "C", "Z" -> code.if_icmpne(differ);
                default -> code.invokestatic(ClassDesc.of("java.util.Objects"), "equals", MethodTypeDesc.of(ConstantDescs.CD_boolean, CD_Object, CD_Object)).ifeq(differ);
            }
        }
        code.iconst_1().ireturn();
        code.labelBinding(differ);
        code.iconst_0().ireturn();
    }

    private static void writeHashCode(CodeBuilder code, List<DirectMethodHandleDesc> fields) {
        code.iconst_0();
        for (DirectMethodHandleDesc f : fields) {
            code.bipush(31).imul();
            ClassDesc t = fieldType(f);
            loadField(code, 0, f.owner(), f);
            if (t.isPrimitive()) code.invokestatic(wrapperOf(t), "hashCode", MethodTypeDesc.of(ConstantDescs.CD_int, t));
            else code.invokestatic(ClassDesc.of("java.util.Objects"), "hashCode", MethodTypeDesc.of(ConstantDescs.CD_int, CD_Object));
            code.iadd();
        }
        code.ireturn();
    }

    private static void writeToString(CodeBuilder code, String simpleName, String names, List<DirectMethodHandleDesc> fields) {
        ClassDesc sb = ClassDesc.of("java.lang.StringBuilder");
        String[] componentNames = fields.isEmpty() ? new String[0] : names.split(";", -1);
        code.new_(sb).dup().invokespecial(sb, ConstantDescs.INIT_NAME, ConstantDescs.MTD_void);
        for (int i = 0; i < fields.size(); i++) {
            String prefix = (i == 0 ? simpleName + "[" : ", ") + componentNames[i] + "=";
            code.ldc(prefix).invokevirtual(sb, "append", MethodTypeDesc.of(sb, ConstantDescs.CD_String));
            loadField(code, 0, fields.get(i).owner(), fields.get(i));
            code.invokevirtual(sb, "append", MethodTypeDesc.of(sb, appendedAs(fieldType(fields.get(i)))));
        }
        code.ldc(fields.isEmpty() ? simpleName + "[]" : "]").invokevirtual(sb, "append", MethodTypeDesc.of(sb, ConstantDescs.CD_String));
        code.invokevirtual(sb, "toString", MethodTypeDesc.of(ConstantDescs.CD_String)).areturn();
    }

    private static final ClassDesc CD_SWITCH_BOOTSTRAPS = ClassDesc.of("java.lang.runtime.SwitchBootstraps");

    /**
     * A pattern switch over types ({@code case Add a -> …; case Mul m -> …}) is an invokedynamic of
     * {@code SwitchBootstraps.typeSwitch(target, restartIndex)}, linked on first use. When every
     * label is a class, each becomes a call of a private static method of the host that computes
     * what the bootstrap's handle does: -1 for null, else the first label from {@code restartIndex}
     * on of which the target is an instance, else the number of labels ({@code default}). Labels of
     * other kinds (strings, integers, enum constants) keep the JDK's linkage.
     */
    private void rewriteTypeSwitches(Path file) throws IOException {
        typeSwitches += writeOutSites(file, "$prespun$typeSwitch$", false,
                (indy, host) -> classLabels(indy) == null ? null : indy.typeSymbol().descriptorString() + classLabels(indy).stream().map(ClassDesc::descriptorString).toList(),
                (code, indy, model) -> {
                    List<ClassDesc> labels = classLabels(indy);
                    var notNull = code.newLabel();
                    code.aload(0).ifnonnull(notNull).iconst_m1().ireturn();
                    code.labelBinding(notNull);
                    for (int i = 0; i < labels.size(); i++) {
                        var next = code.newLabel();
                        code.iload(1).loadConstant(i).if_icmpgt(next);
                        code.aload(0).instanceOf(labels.get(i)).ifeq(next);
                        code.loadConstant(i).ireturn();
                        code.labelBinding(next);
                    }
                    code.loadConstant(labels.size()).ireturn();
                });
    }

    /** The class labels of a typeSwitch site taking (reference, int), or null when it is not one or has another kind of label. */
    private static List<ClassDesc> classLabels(InvokeDynamicInstruction indy) {
        DirectMethodHandleDesc bsm = indy.bootstrapMethod();
        if (!bsm.owner().equals(CD_SWITCH_BOOTSTRAPS) || !bsm.methodName().equals("typeSwitch")) return null;
        MethodTypeDesc t = indy.typeSymbol();
        if (t.parameterCount() != 2 || t.parameterType(0).isPrimitive() || !t.parameterType(1).equals(ConstantDescs.CD_int)
                || !t.returnType().equals(ConstantDescs.CD_int)) return null;
        List<ClassDesc> labels = new ArrayList<>();
        for (var arg : indy.bootstrapArgs()) {
            if (!(arg instanceof ClassDesc c) || c.isPrimitive()) return null;
            labels.add(c);
        }
        return labels;
    }

    private static final ClassDesc CD_STRING_CONCAT = ClassDesc.of("java.lang.invoke.StringConcatFactory");

    /**
     * {@code "a" + x + "b"} is an invokedynamic of {@code StringConcatFactory.makeConcatWithConstants}
     * (a recipe with \1 for each argument and \2 for each extra constant), linked on first use.
     * Each becomes a call of a private static method of the host that appends the recipe's pieces
     * to a StringBuilder: the same text ({@code append} prints every type as {@code String.valueOf}
     * does, a byte or short as its number) and the same order of the arguments' {@code toString}.
     */
    private void rewriteConcatenations(Path file) throws IOException {
        concatenations += writeOutSites(file, "$prespun$concat$", false,
                (indy, host) -> concatPieces(indy) == null ? null : indy.typeSymbol().descriptorString() + indy.bootstrapArgs(),
                (code, indy, model) -> {
                    MethodTypeDesc type = indy.typeSymbol();
                    ClassDesc sb = ClassDesc.of("java.lang.StringBuilder");
                    code.new_(sb).dup().invokespecial(sb, ConstantDescs.INIT_NAME, ConstantDescs.MTD_void);
                    int[] slots = new int[type.parameterCount()];
                    for (int i = 0, slot = 0; i < slots.length; i++) {
                        slots[i] = slot;
                        slot += TypeKind.from(type.parameterType(i)).slotSize();
                    }
                    for (Object piece : concatPieces(indy)) {
                        if (piece instanceof Integer arg) {
                            ClassDesc t = type.parameterType(arg);
                            code.loadLocal(TypeKind.from(t), slots[arg]);
                            code.invokevirtual(sb, "append", MethodTypeDesc.of(sb, appendedAs(t)));
                        } else {
                            code.ldc((String) piece).invokevirtual(sb, "append", MethodTypeDesc.of(sb, ConstantDescs.CD_String));
                        }
                    }
                    code.invokevirtual(sb, "toString", MethodTypeDesc.of(ConstantDescs.CD_String)).areturn();
                });
    }

    /** The StringBuilder.append a value of type {@code t} takes to print as String.valueOf does (a byte or short as its number). */
    private static ClassDesc appendedAs(ClassDesc t) {
        return switch (t.descriptorString()) {
            case "B", "S" -> ConstantDescs.CD_int;
            case "I", "J", "F", "D", "Z", "C" -> t;
            default -> t.equals(ConstantDescs.CD_String) ? ConstantDescs.CD_String : CD_Object;
        };
    }

    /**
     * The pieces of a concatenation site in order: an Integer for the argument of that index, a
     * String for literal text (constants folded in); null when the site is not one this writes out.
     */
    private static List<Object> concatPieces(InvokeDynamicInstruction indy) {
        DirectMethodHandleDesc bsm = indy.bootstrapMethod();
        if (!bsm.owner().equals(CD_STRING_CONCAT) || !bsm.methodName().equals("makeConcatWithConstants")) return null;
        if (!indy.typeSymbol().returnType().equals(ConstantDescs.CD_String)) return null;
        var args = indy.bootstrapArgs();
        if (args.isEmpty() || !(args.get(0) instanceof String recipe)) return null;
        List<Object> pieces = new ArrayList<>();
        StringBuilder text = new StringBuilder();
        int arg = 0, constant = 1;
        for (int i = 0; i < recipe.length(); i++) {
            char c = recipe.charAt(i);
            if (c == '\u0001') {
                if (!text.isEmpty()) { pieces.add(text.toString()); text.setLength(0); }
                pieces.add(arg++);
            } else if (c == '\u0002') {
                if (constant >= args.size() || !(args.get(constant) instanceof String str)) return null;   // only text constants
                text.append(str);
                constant++;
            } else {
                text.append(c);
            }
        }
        if (!text.isEmpty()) pieces.add(text.toString());
        if (arg != indy.typeSymbol().parameterCount() || constant != args.size()) return null;
        return pieces;
    }


    private static String key(MethodModel m) { return m.methodName().stringValue() + m.methodType().stringValue(); }

    private void rewrite(Path file) throws IOException {
        ClassModel model = classFile.parse(Files.readAllBytes(file));
        ClassDesc host = model.thisClass().asSymbol();
        ClassDesc nestHost = model.findAttribute(Attributes.nestHost()).map(a -> a.nestHost().asSymbol()).orElse(host);
        // per method, its metafactory sites in order (null: kept as it is)
        Map<String, List<Site>> perMethod = new LinkedHashMap<>();
        List<Site> made = new ArrayList<>();
        for (MethodModel m : model.methods()) {
            Optional<CodeModel> code = m.code();
            if (code.isEmpty()) continue;
            for (var e : code.get()) {
                if (!(e instanceof InvokeDynamicInstruction indy) || !isMetafactory(indy)) continue;
                Site site = siteOf(indy, host, ClassDesc.of(host.packageName(), host.displayName() + GENERATED + made.size()));
                perMethod.computeIfAbsent(key(m), k -> new ArrayList<>()).add(site);
                if (site == null) kept++; else made.add(site);
            }
        }
        if (made.isEmpty()) return;
        // a freshly compiled host: what an earlier build made for it is stale
        String prefix = host.displayName() + GENERATED;
        try (Stream<Path> old = Files.list(file.getParent())) {
            for (Path f : old.filter(f -> f.getFileName().toString().startsWith(prefix)).toList()) Files.delete(f);
        }
        for (Site s : made) {
            Files.write(classes.resolve(internalName(s.generated()) + ".class"), generate(s, nestHost, model.majorVersion(), model.minorVersion()));
            newNestMembers.computeIfAbsent(internalName(nestHost), k -> new ArrayList<>()).add(s.generated());
        }
        rewritten += made.size();
        byte[] out = classFile.transformClass(model, (clb, ce) -> {
            List<Site> sites = ce instanceof MethodModel mm ? perMethod.get(key(mm)) : null;
            if (sites == null) { clb.with(ce); return; }
            int[] next = {0};
            clb.transformMethod((MethodModel) ce, MethodTransform.transformingCode((cb, e) -> {
                Site s = e instanceof InvokeDynamicInstruction indy && isMetafactory(indy) ? sites.get(next[0]++) : null;
                if (s == null) cb.with(e);
                else if (!s.captures()) cb.getstatic(s.generated(), "INSTANCE", s.iface());
                else cb.invokestatic(s.generated(), "make", s.factoryType());
            }));
        });
        Files.write(file, out);
    }

    /** The site, or null when its lambda cannot be made by a plain class exactly as the metafactory makes it. */
    private Site siteOf(InvokeDynamicInstruction indy, ClassDesc host, ClassDesc generated) {
        var args = indy.bootstrapArgs();
        if (args.size() != 3 || !(args.get(0) instanceof MethodTypeDesc sam) || !(args.get(1) instanceof DirectMethodHandleDesc impl)
                || !(args.get(2) instanceof MethodTypeDesc instantiated)) return null;
        MethodTypeDesc factory = indy.typeSymbol();
        switch (impl.kind()) {
            case STATIC, INTERFACE_STATIC, VIRTUAL, INTERFACE_VIRTUAL, CONSTRUCTOR -> {}
            // a private method of the host: a nestmate may call it (invokevirtual / invokeinterface)
            case SPECIAL, INTERFACE_SPECIAL -> { if (!impl.owner().equals(host)) return null; }
            default -> { return null; }
        }
        if (!accessibleFromPackage(impl, host)) return null;
        // the implementation's parameters: captured values, then the interface method's
        List<ClassDesc> implParams = implParameters(impl);
        int k = factory.parameterCount();
        if (implParams.size() != k + sam.parameterCount() || instantiated.parameterCount() != sam.parameterCount()) return null;   // no varargs adaptation
        for (int i = 0; i < k; i++) if (!convertible(factory.parameterType(i), implParams.get(i))) return null;
        for (int j = 0; j < sam.parameterCount(); j++) {
            if (!convertible(sam.parameterType(j), instantiated.parameterType(j)) || !convertible(instantiated.parameterType(j), implParams.get(k + j))) return null;
        }
        ClassDesc implReturn = impl.kind() == DirectMethodHandleDesc.Kind.CONSTRUCTOR ? impl.owner() : impl.invocationType().returnType();
        if (!sam.returnType().equals(ConstantDescs.CD_void)) {
            if (implReturn.equals(ConstantDescs.CD_void)) return null;
            if (!convertible(implReturn, instantiated.returnType()) || !convertible(instantiated.returnType(), sam.returnType())) return null;
        }
        return new Site(generated, factory, indy.name().stringValue(), sam, impl, instantiated);
    }

    /** The implementation's parameter types as the call takes them: the receiver first for an instance method. */
    private static List<ClassDesc> implParameters(DirectMethodHandleDesc impl) {
        return impl.invocationType().parameterList();   // with the receiver first for an instance method
    }

    /**
     * Whether a class in the host's package (not a subclass of anything the host extends) may call
     * the implementation as the host may: everything in the host's package and nest may, and public
     * members of public classes elsewhere; a protected member of another package may not.
     */
    private boolean accessibleFromPackage(DirectMethodHandleDesc impl, ClassDesc host) {
        if (impl.owner().packageName().equals(host.packageName())) return true;
        if (impl.owner().isArray()) return true;
        Integer flags = memberFlags(impl.owner(), impl.methodName(), impl.lookupDescriptor());
        return flags != null && Modifier.isPublic(flags);
    }

    /** The access flags of the method (declared or inherited), or null when unknown. Ours are read from class files, the JDK's by reflection. */
    private Integer memberFlags(ClassDesc owner, String name, String descriptor) {
        Path p = classes.resolve(internalName(owner) + ".class");
        if (Files.exists(p)) {
            try {
                ClassModel m = ClassFile.of().parse(p);
                if (!m.flags().has(AccessFlag.PUBLIC)) return null;
                for (MethodModel mm : m.methods()) {
                    if (mm.methodName().equalsString(name) && mm.methodType().equalsString(descriptor)) return mm.flags().flagsMask();
                }
                return null;   // inherited: not worth resolving here; the site stays with the JDK
            } catch (IOException | IllegalArgumentException e) {
                return null;
            }
        }
        try {
            Class<?> c = Class.forName(owner.descriptorString().substring(1, owner.descriptorString().length() - 1).replace('/', '.'), false,
                    ClassLoader.getPlatformClassLoader());
            if (!Modifier.isPublic(c.getModifiers())) return null;
            MethodTypeDesc t = MethodTypeDesc.ofDescriptor(descriptor);
            Class<?>[] params = new Class<?>[t.parameterCount()];
            for (int i = 0; i < params.length; i++) params[i] = (Class<?>) t.parameterType(i).resolveConstantDesc(java.lang.invoke.MethodHandles.lookup());
            var member = name.equals("<init>") ? c.getConstructor(params) : c.getMethod(name, params);
            return member.getModifiers();
        } catch (ReflectiveOperationException | LinkageError | SecurityException e) {
            return null;
        }
    }

    private static boolean isWrapper(ClassDesc d) { return primitiveOf(d) != null; }

    private static ClassDesc primitiveOf(ClassDesc wrapper) {
        return switch (wrapper.descriptorString()) {
            case "Ljava/lang/Integer;" -> ConstantDescs.CD_int;
            case "Ljava/lang/Long;" -> ConstantDescs.CD_long;
            case "Ljava/lang/Float;" -> ConstantDescs.CD_float;
            case "Ljava/lang/Double;" -> ConstantDescs.CD_double;
            case "Ljava/lang/Boolean;" -> ConstantDescs.CD_boolean;
            case "Ljava/lang/Byte;" -> ConstantDescs.CD_byte;
            case "Ljava/lang/Short;" -> ConstantDescs.CD_short;
            case "Ljava/lang/Character;" -> ConstantDescs.CD_char;
            default -> null;
        };
    }

    private static ClassDesc wrapperOf(ClassDesc primitive) {
        return switch (primitive.descriptorString()) {
            case "I" -> ClassDesc.of("java.lang.Integer");
            case "J" -> ClassDesc.of("java.lang.Long");
            case "F" -> ClassDesc.of("java.lang.Float");
            case "D" -> ClassDesc.of("java.lang.Double");
            case "Z" -> ClassDesc.of("java.lang.Boolean");
            case "B" -> ClassDesc.of("java.lang.Byte");
            case "S" -> ClassDesc.of("java.lang.Short");
            case "C" -> ClassDesc.of("java.lang.Character");
            default -> throw new IllegalArgumentException(primitive.descriptorString());
        };
    }

    /** Primitive widening the metafactory allows (JLS 5.1.2), or the same type. */
    private static boolean widens(ClassDesc from, ClassDesc to) {
        if (from.equals(to)) return true;
        String f = from.descriptorString(), t = to.descriptorString();
        return switch (f) {
            case "B" -> "SIJFD".contains(t);
            case "S", "C" -> "IJFD".contains(t);
            case "I" -> "JFD".contains(t);
            case "J" -> "FD".contains(t);
            case "F" -> "D".equals(t);
            default -> false;
        };
    }

    /** Whether {@link #convert} knows how to adapt a value of type {@code from} to {@code to}. */
    private static boolean convertible(ClassDesc from, ClassDesc to) {
        if (from.equals(to)) return true;
        boolean fp = from.isPrimitive(), tp = to.isPrimitive();
        if (fp && tp) return widens(from, to);
        if (fp) return true;                                  // box, then cast
        if (tp) return isWrapper(from) ? widens(primitiveOf(from), to) : from.equals(CD_Object) || from.descriptorString().equals("Ljava/lang/Number;");
        return true;                                          // reference cast
    }

    /** Adapts the value on the stack from {@code from} to {@code to}, as {@link #convertible} allows. */
    private static void convert(CodeBuilder cb, ClassDesc from, ClassDesc to) {
        if (from.equals(to)) return;
        boolean fp = from.isPrimitive(), tp = to.isPrimitive();
        if (fp && tp) {
            cb.conversion(TypeKind.from(from), TypeKind.from(to));
        } else if (fp) {
            ClassDesc w = wrapperOf(from);
            cb.invokestatic(w, "valueOf", MethodTypeDesc.of(w, from));
            if (!to.equals(w) && !to.equals(CD_Object)) cb.checkcast(to);
        } else if (tp) {
            ClassDesc w = isWrapper(from) ? from : wrapperOf(to);
            ClassDesc prim = primitiveOf(w);
            if (!w.equals(from)) cb.checkcast(w);
            cb.invokevirtual(w, prim.displayName() + "Value", MethodTypeDesc.of(prim));
            if (!prim.equals(to)) cb.conversion(TypeKind.from(prim), TypeKind.from(to));
        } else if (!to.equals(CD_Object)) {
            cb.checkcast(to);
        }
    }

    private byte[] generate(Site s, ClassDesc nestHost, int major, int minor) {
        List<ClassDesc> captured = s.factoryType().parameterList();
        return classFile.build(s.generated(), cb -> {
            cb.withVersion(major, minor);
            cb.withFlags(ACC_FINAL | ACC_SUPER | ACC_SYNTHETIC);
            cb.withSuperclass(CD_Object);
            cb.withInterfaceSymbols(s.iface());
            cb.with(NestHostAttribute.of(nestHost));
            for (int i = 0; i < captured.size(); i++) cb.withField("arg" + i, captured.get(i), ACC_PRIVATE | ACC_FINAL);
            cb.withMethodBody(ConstantDescs.INIT_NAME, MethodTypeDesc.of(ConstantDescs.CD_void, captured), ACC_PRIVATE, code -> {
                code.aload(0).invokespecial(CD_Object, ConstantDescs.INIT_NAME, ConstantDescs.MTD_void);
                int slot = 1;
                for (int i = 0; i < captured.size(); i++) {
                    code.aload(0).loadLocal(TypeKind.from(captured.get(i)), slot).putfield(s.generated(), "arg" + i, captured.get(i));
                    slot += TypeKind.from(captured.get(i)).slotSize();
                }
                code.return_();
            });
            if (captured.isEmpty()) {
                cb.withField("INSTANCE", s.iface(), ACC_STATIC | ACC_FINAL);
                cb.withMethodBody(ConstantDescs.CLASS_INIT_NAME, ConstantDescs.MTD_void, ACC_STATIC, code -> code
                        .new_(s.generated()).dup().invokespecial(s.generated(), ConstantDescs.INIT_NAME, ConstantDescs.MTD_void)
                        .putstatic(s.generated(), "INSTANCE", s.iface()).return_());
            } else {
                cb.withMethodBody("make", s.factoryType(), ACC_STATIC, code -> {
                    code.new_(s.generated()).dup();
                    int slot = 0;
                    for (ClassDesc c : captured) {
                        code.loadLocal(TypeKind.from(c), slot);
                        slot += TypeKind.from(c).slotSize();
                    }
                    code.invokespecial(s.generated(), ConstantDescs.INIT_NAME, MethodTypeDesc.of(ConstantDescs.CD_void, captured)).areturn();
                });
            }
            cb.withMethodBody(s.samName(), s.samType(), ACC_PUBLIC | ACC_FINAL, code -> callImplementation(code, s, captured));
        });
    }

    private static void callImplementation(CodeBuilder code, Site s, List<ClassDesc> captured) {
        DirectMethodHandleDesc impl = s.impl();
        boolean constructor = impl.kind() == DirectMethodHandleDesc.Kind.CONSTRUCTOR;
        if (constructor) code.new_(impl.owner()).dup();
        List<ClassDesc> implParams = implParameters(impl);
        for (int i = 0; i < captured.size(); i++) {
            code.aload(0).getfield(s.generated(), "arg" + i, captured.get(i));
            convert(code, captured.get(i), implParams.get(i));
        }
        int slot = 1;
        for (int j = 0; j < s.samType().parameterCount(); j++) {
            ClassDesc samParam = s.samType().parameterType(j), inst = s.instantiated().parameterType(j);
            code.loadLocal(TypeKind.from(samParam), slot);
            slot += TypeKind.from(samParam).slotSize();
            convert(code, samParam, inst);
            convert(code, inst, implParams.get(captured.size() + j));
        }
        MethodTypeDesc lookupType = MethodTypeDesc.ofDescriptor(impl.lookupDescriptor());
        switch (impl.kind()) {
            case STATIC -> code.invokestatic(impl.owner(), impl.methodName(), lookupType, false);
            case INTERFACE_STATIC -> code.invokestatic(impl.owner(), impl.methodName(), lookupType, true);
            case VIRTUAL, SPECIAL -> code.invokevirtual(impl.owner(), impl.methodName(), lookupType);
            case INTERFACE_VIRTUAL, INTERFACE_SPECIAL -> code.invokeinterface(impl.owner(), impl.methodName(), lookupType);
            case CONSTRUCTOR -> code.invokespecial(impl.owner(), ConstantDescs.INIT_NAME, lookupType);
            default -> throw new IllegalStateException(impl.kind().toString());
        }
        ClassDesc samReturn = s.samType().returnType();
        ClassDesc implReturn = constructor ? impl.owner() : lookupType.returnType();
        if (samReturn.equals(ConstantDescs.CD_void)) {
            if (!implReturn.equals(ConstantDescs.CD_void)) {
                if (TypeKind.from(implReturn).slotSize() == 2) code.pop2(); else code.pop();
            }
            code.return_();
        } else {
            convert(code, implReturn, s.instantiated().returnType());
            convert(code, s.instantiated().returnType(), samReturn);
            code.return_(TypeKind.from(samReturn));
        }
    }

    /** Adds the generated classes to their nest hosts' NestMembers. */
    private void addNestMembers() throws IOException {
        for (var entry : newNestMembers.entrySet()) {
            Path file = classes.resolve(entry.getKey() + ".class");
            ClassModel model = classFile.parse(Files.readAllBytes(file));
            Set<ClassDesc> members = new LinkedHashSet<>();
            model.findAttribute(Attributes.nestMembers()).ifPresent(a -> a.nestMembers().stream().map(ClassEntry::asSymbol).forEach(members::add));
            members.addAll(entry.getValue());
            ClassTransform dropOld = (cb, e) -> {
                if (!(e instanceof NestMembersAttribute)) cb.with(e);
            };
            byte[] out = classFile.transformClass(model, dropOld.andThen(ClassTransform.endHandler(cb -> cb.with(NestMembersAttribute.ofSymbols(List.copyOf(members))))));
            Files.write(file, out);
        }
    }
}
