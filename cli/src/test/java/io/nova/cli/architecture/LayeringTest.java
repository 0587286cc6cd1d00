package io.nova.cli.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.lang.ArchRule;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Proves the module arrows point one way, from the compiled main classes of every module on this
 * (the top module's) class path: proto ← protocol ← statemachine ← cluster-core ← gateway ← node ← cli,
 * and client ← proto/protocol with nothing server-side under it; and that the pure core
 * ({@code statemachine.stream}, {@code statemachine.meta}) uses no Ratis, RocksDB, clock or threads.
 * A class that adds an arrow the wrong way fails the build here, naming the offending dependency.
 */
class LayeringTest {

  private static JavaClasses main;

  /** Main classes only: test classes (and the node's test jar of shared fixtures) may cross layers. */
  private static final ImportOption MAIN_CLASSES_ONLY = (Location location) ->
      !location.contains("/test-classes/") && !location.contains("-tests.jar");

  @BeforeAll
  static void importMainClasses() {
    main = new ClassFileImporter().withImportOption(MAIN_CLASSES_ONLY).importPackages("io.nova");
  }

  @Test
  void modulesDependOnlyDownward() {
    ArchRule rule = layeredArchitecture().consideringOnlyDependenciesInLayers()
        .layer("proto").definedBy("io.nova.proto.v1..")
        .layer("protocol").definedBy("io.nova.protocol..")
        // The log-entry messages are generated in the statemachine module, which owns them.
        .layer("statemachine").definedBy("io.nova.statemachine..", "io.nova.proto.internal..")
        .layer("cluster-core").definedBy("io.nova.cluster..")
        .layer("gateway").definedBy("io.nova.gateway..")
        .layer("node").definedBy("io.nova.node..")
        .layer("client").definedBy("io.nova.client..")
        .layer("cli").definedBy("io.nova.cli..")
        .whereLayer("cli").mayNotBeAccessedByAnyLayer()
        .whereLayer("node").mayOnlyBeAccessedByLayers("cli")
        .whereLayer("gateway").mayOnlyBeAccessedByLayers("node", "cli")
        .whereLayer("cluster-core").mayOnlyBeAccessedByLayers("gateway", "node", "cli")
        .whereLayer("statemachine").mayOnlyBeAccessedByLayers("cluster-core", "gateway", "node", "cli")
        .whereLayer("client").mayOnlyBeAccessedByLayers("cli")
        .whereLayer("protocol").mayOnlyBeAccessedByLayers("statemachine", "cluster-core", "gateway", "node",
            "client", "cli");
    rule.check(main);
  }

  /**
   * Each module's POM declares every Nova module its main classes use (none reaches one through a
   * transitive dependency, which a change elsewhere could take away).
   */
  @Test
  void eachModuleDeclaresTheModulesItUses() throws IOException {
    Map<String, Set<String>> missing = new TreeMap<>();
    for (JavaClass origin : main) {
      Optional<String> from = ModuleOf.artifact(origin);
      if (from.isEmpty()) {
        continue;
      }
      Set<String> declared = ModuleOf.declaredNovaDependencies(from.get());
      for (Dependency dependency : origin.getDirectDependenciesFromSelf()) {
        Optional<String> to = ModuleOf.artifact(dependency.getTargetClass());
        if (to.isPresent() && !to.equals(from) && !declared.contains(to.get())) {
          missing.computeIfAbsent(from.get(), k -> new TreeSet<>()).add(to.get() + " (" + dependency.getDescription() + ")");
        }
      }
    }
    assertThat(missing).as("modules used by main classes but not declared in the module's pom.xml").isEmpty();
  }

  @Test
  void theClientUsesNoServerSideLibrary() {
    noClasses().that().resideInAPackage("io.nova.client..")
        .should().dependOnClassesThat().resideInAnyPackage("org.apache.ratis..", "org.rocksdb..",
            "io.nova.proto.internal..")
        .check(main);
  }

  @Test
  void thePureCoreHasNoRatisRocksDbClockOrThreads() {
    String[] core = {"io.nova.statemachine.stream..", "io.nova.statemachine.meta.."};
    noClasses().that().resideInAnyPackage(core)
        .should().dependOnClassesThat().resideInAnyPackage("org.apache.ratis..", "org.rocksdb..",
            "java.util.concurrent..", "java.nio.file..", "java.io..")
        .orShould().dependOnClassesThat().areAssignableTo(Thread.class)
        .orShould().dependOnClassesThat().areAssignableTo(Clock.class)
        .orShould().callMethod(System.class, "currentTimeMillis")
        .orShould().callMethod(System.class, "nanoTime")
        .orShould().callMethod(Instant.class, "now")
        .check(main);
  }
}
