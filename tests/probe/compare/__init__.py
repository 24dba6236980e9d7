"""Two tables compared (the ``compare`` op): case tables, a seeded property test, the code."""
