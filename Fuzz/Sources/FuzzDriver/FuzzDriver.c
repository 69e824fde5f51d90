#include "FuzzDriver.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

// Both come from libFuzzer (-sanitize=fuzzer) and from the Swift target (@_cdecl) at link time.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

_Noreturn void huddle_fuzz_main(int argc, char **argv) {
    exit(LLVMFuzzerRunDriver(&argc, &argv, LLVMFuzzerTestOneInput));
}
