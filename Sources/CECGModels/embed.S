// The trained models' JSON, assembled byte for byte into read-only data. The
// assembler finds models/*.json through the target's header search path
// (Package.swift: headerSearchPath("models")). A build does not notice a changed
// data file by itself, so each trainer also rewrites that file's sha256 below:
// the changed line makes the build assemble this file again, and
// EmbeddedModelTests fails when a hash and its file disagree.

#define EMBED(name, file)        \
    .global name##_start;        \
    .global name##_end;          \
    .balign 16;                  \
name##_start:                    \
    .incbin file;                \
name##_end:                      \
    .byte 0

    .section .rodata
// sha256 verdict-trees.json cf3a9b5e84ac407e18fd99199c9f3893015640bfe49526d4aa738f53d212dd3d
EMBED(tscope_model_verdict_trees, "verdict-trees.json")
// sha256 verdict-network.json c92defa31d18b5bba7116d7bfb13e4f141a8a52694c679f4505621c4638caebd
EMBED(tscope_model_verdict_network, "verdict-network.json")
// sha256 ventricular-beat.json 2c1f8c56eb38c0518f63e34e79add4d00d07ce289a6aab5b10a0a7e63479c3ad
EMBED(tscope_model_ventricular_beat, "ventricular-beat.json")
// sha256 rr-af.json d5d341d2c7c05712262524f84a6ba49e6b095477df349b2980ca336799870d17
EMBED(tscope_model_rr_af, "rr-af.json")

    .section .note.GNU-stack, "", @progbits
