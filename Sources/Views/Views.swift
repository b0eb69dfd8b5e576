// Views module: draws view models into a Terminal buffer
