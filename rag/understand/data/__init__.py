"""Intent examples (Korean and English) and their e5 vectors, shipped with the package."""
