package io.nova.client.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.util.ArrayList;
import java.util.List;

/**
 * Proves that the SDK's public API (public classes of io.nova.client outside {@code .internal}) names no
 * gRPC, protobuf or Ratis type in a public or protected constructor, method or field, so callers compile
 * against Nova's types only and the transport can change without breaking them.
 */
@AnalyzeClasses(packages = "io.nova.client", importOptions = ImportOption.DoNotIncludeTests.class)
class PublicApiHasNoTransportTypesTest {

    private static final List<String> TRANSPORT_PACKAGES = List.of("io.grpc", "com.google.protobuf",
            "org.apache.ratis");

    @ArchTest
    static final ArchRule publicApiNamesNoTransportType = classes()
            .that().arePublic()
            .and().resideOutsideOfPackage("io.nova.client.internal..")
            .and(DescribedPredicate.describe("are not generated protobuf code",
                    (JavaClass c) -> !c.getPackageName().startsWith("io.nova.proto")))
            .should(exposeNoTransportType());

    private static ArchCondition<JavaClass> exposeNoTransportType() {
        return new ArchCondition<>("expose no io.grpc, com.google.protobuf or org.apache.ratis type") {
            @Override
            public void check(JavaClass c, ConditionEvents events) {
                for (JavaCodeUnit unit : c.getCodeUnits()) {
                    if (!visible(unit.getModifiers().contains(JavaModifier.PUBLIC),
                            unit.getModifiers().contains(JavaModifier.PROTECTED))) {
                        continue;
                    }
                    List<JavaClass> named = new ArrayList<>(unit.getRawParameterTypes());
                    named.add(unit.getRawReturnType());
                    named.addAll(unit.getThrowsClause().getTypes());
                    // generic arguments too: a List<ByteString> leaks protobuf as much as a ByteString
                    unit.getParameterTypes().forEach(t -> named.addAll(t.getAllInvolvedRawTypes()));
                    named.addAll(unit.getReturnType().getAllInvolvedRawTypes());
                    report(events, c, unit.getFullName(), named);
                }
                for (JavaField field : c.getFields()) {
                    if (visible(field.getModifiers().contains(JavaModifier.PUBLIC),
                            field.getModifiers().contains(JavaModifier.PROTECTED))) {
                        report(events, c, field.getFullName(), List.copyOf(field.getType().getAllInvolvedRawTypes()));
                    }
                }
            }
        };
    }

    private static boolean visible(boolean isPublic, boolean isProtected) {
        return isPublic || isProtected;
    }

    private static void report(ConditionEvents events, JavaClass owner, String member, List<JavaClass> named) {
        for (JavaClass type : named) {
            JavaClass base = type.isArray() ? type.getBaseComponentType() : type;
            if (TRANSPORT_PACKAGES.stream().anyMatch(p -> base.getPackageName().startsWith(p))) {
                events.add(SimpleConditionEvent.violated(owner,
                        member + " names " + base.getName() + "; wrap it in a Nova type or move it to .internal"));
            }
        }
    }
}
