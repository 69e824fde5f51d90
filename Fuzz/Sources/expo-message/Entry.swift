import FuzzDriver

/// Hands the process over to libFuzzer, which calls `LLVMFuzzerTestOneInput` (`fuzz`) for each input.
@main
enum Entry {
    static func main() {
        huddle_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv)
    }
}
