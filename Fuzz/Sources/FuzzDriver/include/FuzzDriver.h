#ifndef HUDDLE_FUZZ_DRIVER_H
#define HUDDLE_FUZZ_DRIVER_H

// Runs libFuzzer's driver over the target's LLVMFuzzerTestOneInput, then exits with its status.
//
// SwiftPM links executables on Linux with `main` renamed to the module's entry point
// (`--defsym main=<module>_main`), so libFuzzer's own `main` never runs; each target's `@main` calls this.
_Noreturn void huddle_fuzz_main(int argc, char **argv);

#endif
