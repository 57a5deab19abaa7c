// Entry points for the fuzz executables; see entry.c. Nothing here is called from Swift.
#include <stddef.h>
#include <stdint.h>

int fuzz_mustache_main(int argc, char **argv);
int fuzz_request_main(int argc, char **argv);
int fuzz_feed_main(int argc, char **argv);
int fuzz_image_main(int argc, char **argv);
