package dev.ember.kernels;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What Ember says of the OpenBLAS it loaded names who chose its kernels: a host that sets
 * {@code OPENBLAS_CORETYPE} (some do, for older OpenBLAS builds) gets those kernels on any CPU, and
 * a user reading {@code ember doctor} should see that rather than guess it.
 */
class OpenBlasDescriptionTest {

    @Test
    void theEnvironmentsCoreTypeIsNamed() {
        assertEquals(" as OPENBLAS_CORETYPE=Haswell in the environment asks", OpenBlas.chosenBy("Haswell"));
        assertEquals(" as OPENBLAS_CORETYPE=SKYLAKEX in the environment asks", OpenBlas.chosenBy(" SKYLAKEX\n"));
        assertEquals("", OpenBlas.chosenBy(null), "OpenBLAS chose from the CPU");
        assertEquals("", OpenBlas.chosenBy(" "), "an empty variable chooses nothing");
    }

    @Test
    void theLoadedLibrarysDescriptionSaysSoOnAHostThatSetsIt() {
        String coreType = System.getenv("OPENBLAS_CORETYPE");
        assumeTrue(coreType != null && !coreType.isBlank() && OpenBlas.SGEMM != null, "OPENBLAS_CORETYPE set and OpenBLAS loaded");
        assertTrue(OpenBlas.DESCRIPTION.contains("kernels as OPENBLAS_CORETYPE=" + coreType.strip() + " in the environment asks"), OpenBlas.DESCRIPTION);
    }
}
