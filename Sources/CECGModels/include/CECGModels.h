#ifndef CECGMODELS_H
#define CECGMODELS_H
#include <stddef.h>

// The trained ECG models' JSON documents, assembled into the binary from
// models/*.json by embed.S (written by the trainers in Tools/; Docs/model-cards.md).
// Each returns the first byte and sets *count to the document's length in bytes
// (UTF-8, no terminating zero counted).

const unsigned char *tscope_model_verdict_trees(size_t *count);
const unsigned char *tscope_model_verdict_network(size_t *count);
const unsigned char *tscope_model_ventricular_beat(size_t *count);
const unsigned char *tscope_model_rr_af(size_t *count);

#endif
