"""Windows of tables and arrays, for the ``rows`` op: a value seen as rows × columns
(``adapters``, one per kind: ``frames``, ``ndarrays``, ``records``, chosen by ``adapt``),
cells as text (``cells``), filters (``filters``) and the order of a view (``order``)."""
