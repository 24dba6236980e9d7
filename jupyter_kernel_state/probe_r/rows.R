# The R probe's `rows` and `delete` operations.
#
# rows: a window of a data.frame (tibbles too), a matrix or an atomic vector / factor;
# only the window's rows are formatted. A sort (`order`, NA last) and a filter run under
# their own time limit and are kept (the last one, for the execution count it was made
# at) so paging costs a window. Cells are text: numbers as as.character gives them (15
# significant digits, the same for a value wherever it is), dates and times compact,
# factors by level, NA as null.
# delete: removes the exact binding from the global environment.

ROWS_MAX <- 100000L
ROWS_OPS <- c("contains", "eq", "ne", "lt", "le", "gt", "ge", "isnull", "notnull")

refuse <- function(reason, message) {
  out <- list(ok = FALSE, error = message)
  out[[reason]] <- TRUE
  out
}

table_of <- function(x) {
  if (is.data.frame(x)) {
    return(list(kind = "dataframe", n = nrow(x), names = names(x),
                column = function(j) .subset2(x, j), labels = attr(x, "row.names")))
  }
  if (is.matrix(x) && is.atomic(x)) {
    cn <- colnames(x)
    if (is.null(cn)) cn <- as.character(seq_len(ncol(x)) - 1L)
    return(list(kind = "array", n = nrow(x), names = cn,
                column = function(j) x[, j], labels = rownames(x)))
  }
  if ((is.atomic(x) || is.factor(x)) && is.null(dim(x))) {
    return(list(kind = "series", n = length(x), names = "value",
                column = function(j) x, labels = names(x)))
  }
  NULL
}

cell_text <- function(col, limit) {
  out <- if (inherits(col, "POSIXt")) {
    text <- format(col, "%Y-%m-%d %H:%M:%S")
    present <- text[!is.na(text)]
    if (length(present) && all(endsWith(present, " 00:00:00"))) substr(text, 1L, 10L) else text
  } else if (is.factor(col) || is.character(col)) {
    as.character(col)
  } else {
    as.character(col)
  }
  out[is.na(col)] <- NA_character_
  long <- !is.na(out) & nchar(out) > limit
  out[long] <- paste0(substr(out[long], 1L, limit - 1L), "\u2026")
  list(text = out, cut = sum(long))
}

row_mask <- function(col, op, value) {
  if (op == "isnull") return(is.na(col))
  if (op == "notnull") return(!is.na(col))
  if (op == "contains") {
    return(!is.na(col) & grepl(tolower(value), tolower(as.character(col)), fixed = TRUE))
  }
  target <- if (is.numeric(col) && !is.object(col)) suppressWarnings(as.numeric(value))
            else if (inherits(col, "Date")) tryCatch(as.Date(value), error = function(e) NA)
            else if (inherits(col, "POSIXt")) tryCatch(as.POSIXct(value, tz = attr(col, "tzone") %||% ""), error = function(e) NA)
            else if (is.logical(col)) as.logical(toupper(value))
            else value
  if (length(target) != 1L || is.na(target)) stop("filter value ", value, " is not a ",
                                                  class(col)[1L], " value", call. = FALSE)
  if (is.factor(col)) col <- as.character(col)
  keep <- switch(op, eq = col == target, ne = col != target, lt = col < target,
                 le = col <= target, gt = col > target, ge = col >= target)
  !is.na(keep) & keep
}

`%||%` <- function(a, b) if (is.null(a)) b else a

rows_op <- function(request) {
  name <- request$name
  if (!is.character(name) || length(name) != 1L || !nzchar(name)) return(bad("name"))
  parsed <- tryCatch(list(
    max_rows = int_arg(request, "max_rows", 1000L, 1L, ROWS_MAX),
    max_columns = int_arg(request, "max_columns", 100L, 1L, 10000L),
    offset = int_arg(request, "offset", 0L, 0L, .Machine$integer.max),
    limit = int_arg(request, "limit", 100L, 1L, ROWS_MAX),
    cell_chars = int_arg(request, "cell_chars", 200L, 10L, 10000L),
    sort_ms = int_arg(request, "sort_ms", 2000L, 1L, 60000L)
  ), error = function(e) e)
  if (inherits(parsed, "error")) return(bad(conditionMessage(parsed)))
  if (parsed$limit > parsed$max_rows) return(bad("limit"))
  if (!exists(name, envir = globalenv(), inherits = FALSE) ||
      bindingIsActive(name, globalenv())) {
    return(list(ok = FALSE, not_found = TRUE, error = paste0("Variable not found: ", name)))
  }
  x <- get(name, envir = globalenv(), inherits = FALSE)
  t <- table_of(x)
  if (is.null(t)) {
    return(refuse("bad_request", paste0(name, " is a ", type_name(x),
                                        ": rows show data.frames, matrices and vectors")))
  }
  ncols <- length(t$names)
  listed <- request$columns
  positions <- if (!is.null(listed)) {
    p <- unlist(listed)
    if (!is.numeric(p) || !length(p) || length(p) > parsed$max_columns || any(p < 0)) {
      return(bad("columns"))
    }
    if (any(p >= ncols)) {
      return(refuse("bad_request", paste0("column ", p[p >= ncols][1L],
                                          " is out of range: the value has ", ncols,
                                          if (ncols == 1L) " column" else " columns")))
    }
    as.integer(p)
  } else {
    start <- int_arg(request, "column_start", 0L, 0L, .Machine$integer.max)
    stop <- min(int_arg(request, "column_stop", start + parsed$max_columns, start,
                        .Machine$integer.max), start + parsed$max_columns, ncols)
    if (stop > start) seq.int(start, stop - 1L) else integer(0)
  }
  find <- function(wanted) {
    at <- match(wanted, t$names)
    if (is.na(at)) stop("No column named '", substr(wanted, 1L, 100L), "'", call. = FALSE)
    at
  }
  # The view: the sort and the filter as one structure (probe/protocol.py's View).
  view <- request$view
  first_key <- if (length(view$sort)) view$sort[[1L]] else NULL
  sort_column <- first_key$column
  spec <- view$filter
  order_rows <- NULL
  sort <- NULL
  filtered <- NULL
  if (!is.null(sort_column) || !is.null(spec)) {
    prepared <- tryCatch({
      by <- if (is.null(sort_column)) NULL else find(sort_column)
      where <- NULL
      if (!is.null(spec)) {
        if (!is.list(spec) || !(spec$op %in% ROWS_OPS) || !is.character(spec$column)) {
          stop("filter op must be one of ", paste(ROWS_OPS, collapse = ", "), call. = FALSE)
        }
        where <- list(at = find(spec$column), op = spec$op,
                      value = if (is.null(spec$value)) "" else spec$value)
      }
      list(by = by, where = where)
    }, error = function(e) e)
    if (inherits(prepared, "error")) return(refuse("bad_request", conditionMessage(prepared)))
    desc <- isTRUE(first_key$desc)
    key <- paste(name, ec_arg(request, "ec"), t$n, prepared$by, desc,
                 paste(unlist(prepared$where), collapse = "\u0001"), sep = "\u0002")
    if (identical(state$rows_key, key)) {
      order_rows <- state$rows_order
    } else {
      made <- guarded(function() {
        o <- if (is.null(prepared$by)) seq_len(t$n)
             else order(t$column(prepared$by), decreasing = desc, na.last = TRUE,
                        method = "radix")
        if (!is.null(prepared$where)) {
          w <- prepared$where
          keep <- row_mask(t$column(w$at), w$op, w$value)
          o <- o[keep[o]]
        }
        o
      }, parsed$sort_ms)
      if (!is.null(made$error)) {
        if (startsWith(made$error, "raised simpleError: filter value")) {
          return(refuse("bad_request", sub("^raised simpleError: ", "", made$error)))
        }
        return(refuse("unprocessable", paste0("Reading rows of ", name, " (", type_name(x),
                                              ") ", made$error)))
      }
      order_rows <- made$value
      state$rows_key <- key
      state$rows_order <- order_rows
    }
    if (!is.null(sort_column)) sort <- paste0(sort_column, ":", if (desc) "desc" else "asc")
    if (!is.null(spec)) filtered <- length(order_rows)
  }
  span <- if (is.null(order_rows)) t$n else length(order_rows)
  first <- parsed$offset + 1L
  last <- min(span, parsed$offset + parsed$limit)
  picked <- if (first > last) integer(0) else seq.int(first, last)
  if (!is.null(order_rows)) picked <- order_rows[picked]
  cut_cells <- 0L
  columns_text <- lapply(positions, function(p) {
    cells <- cell_text(t$column(p + 1L)[picked], parsed$cell_chars)
    cut_cells <<- cut_cells + cells$cut
    cells$text
  })
  labels <- if (is.null(t$labels) || is.numeric(t$labels)) as.character(picked)
            else as.character(t$labels[picked])
  out_rows <- lapply(seq_along(picked), function(i) {
    I(vapply(columns_text, function(col) col[i], ""))
  })
  dtype <- function(col) if (is.factor(col)) "factor" else class(col)[1L]
  list(rows = list(
    name = name, kind = t$kind, type = type_name(x),
    shape = I(if (t$kind == "series") t$n else c(t$n, ncols)),
    total_rows = t$n, offset = parsed$offset, limit = parsed$limit,
    columns = I(lapply(positions, function(p) list(name = t$names[p + 1L],
                                                   dtype = dtype(t$column(p + 1L)),
                                                   position = p))),
    columns_total = ncols, index_name = NULL, index = I(labels), rows = I(out_rows),
    sort = sort, filter = if (is.null(spec)) NULL else spec, filtered_rows = filtered,
    cells_truncated = cut_cells, cells_unread = 0L, changed_at = state$seen[[name]]$at
  ))
}

delete_op <- function(request) {
  name <- request$name
  if (!is.character(name) || length(name) != 1L || !nzchar(name)) return(bad("name"))
  if (!exists(name, envir = globalenv(), inherits = FALSE)) {
    return(list(ok = FALSE, not_found = TRUE, error = paste0("Variable not found: ", name)))
  }
  ec <- ec_arg(request, "ec")
  observe(ls(globalenv(), all.names = TRUE, sorted = FALSE), ec, 100L)  # known before it goes
  rm(list = name, envir = globalenv())
  observe(ls(globalenv(), all.names = TRUE, sorted = FALSE), ec, 100L)
  list(deleted = name)
}
