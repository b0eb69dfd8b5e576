// Accessors for the documents embed.S assembles: the symbols it defines mark
// each document's first byte and the byte after its last.
#include "CECGModels.h"

#define TSCOPE_MODEL(name)                                                        \
    extern const unsigned char tscope_model_##name##_start[];                     \
    extern const unsigned char tscope_model_##name##_end[];                       \
    const unsigned char *tscope_model_##name(size_t *count) {                    \
        *count = (size_t)(tscope_model_##name##_end - tscope_model_##name##_start); \
        return tscope_model_##name##_start;                                       \
    }

TSCOPE_MODEL(verdict_trees)
TSCOPE_MODEL(verdict_network)
TSCOPE_MODEL(ventricular_beat)
TSCOPE_MODEL(rr_af)
