// DSP module: see DESIGN.md
