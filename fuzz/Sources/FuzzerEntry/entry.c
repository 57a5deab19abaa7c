// SwiftPM links every executable with `--defsym main=<module>_main` (so tests can link an
// executable's code). Built with -parse-as-library, the fuzz modules define no such symbol and
// must not: libFuzzer owns `main`. These stand-ins hand control to libFuzzer's driver instead.

#include "FuzzerEntry.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

int fuzz_mustache_main(int argc, char **argv) {
    return LLVMFuzzerRunDriver(&argc, &argv, LLVMFuzzerTestOneInput);
}

int fuzz_request_main(int argc, char **argv) {
    return LLVMFuzzerRunDriver(&argc, &argv, LLVMFuzzerTestOneInput);
}

int fuzz_feed_main(int argc, char **argv) {
    return LLVMFuzzerRunDriver(&argc, &argv, LLVMFuzzerTestOneInput);
}

int fuzz_image_main(int argc, char **argv) {
    return LLVMFuzzerRunDriver(&argc, &argv, LLVMFuzzerTestOneInput);
}
