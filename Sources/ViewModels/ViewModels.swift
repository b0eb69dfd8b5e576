// ViewModels module: see DESIGN.md
