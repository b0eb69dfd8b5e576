// Devices module: see DESIGN.md
