#include <fftw3.h>

/* fftwf_version is an array of unknown size, which Swift cannot import: its address as a C string. */
static inline const char *tscope_fftwf_version(void) { return fftwf_version; }
