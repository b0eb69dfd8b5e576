// Terminal module: see DESIGN.md
