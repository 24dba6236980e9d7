"""What every table's view shares, whatever its library: cells as text (``cells``),
expressions both evaluated and written as code (``expressions``), a column's family and
a filter value read as its type (``families``), a filter as one expression (``filters``),
the columns a view names (``columns``), a view's rows through its library (``sources``)
and their order, kept (``order``), a view's code (``code``), a column's statistics
(``statistics``) and a table's profile (``profiles``).  Each library's own part is its
backend's (``backends``)."""
