# The R probe's `rows` and `delete` operations.
#
# rows: a window of a data.frame (tibbles too), a matrix or an atomic vector / factor;
# only the window's rows are formatted. The view (protocol.View: sort keys and a filter)
# is one plan (view_plan) shared with `profile` and `code`: sort keys ranked by
# order(..., na.last = TRUE, method = "radix") -- stable, missing values last in both
# directions -- and the filter's R code (filter.R). Both run under `sort_ms` and are kept
# (the last one, for the execution count it was made at) so paging costs a window. Cells
# are text: numbers as as.character gives them (15 significant digits, the same for a
# value wherever it is), dates and times compact, factors by level, NA as null.
# delete: removes the exact binding from the global environment.

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

# The table of a global variable, or the refusal that says why there is none.
table_named <- function(name, what = "rows") {
  if (!exists(name, envir = globalenv(), inherits = FALSE) ||
      bindingIsActive(name, globalenv())) {
    return(list(refusal = refusal("not_found", paste0("Variable not found: ", name))))
  }
  x <- get(name, envir = globalenv(), inherits = FALSE)
  t <- table_of(x)
  if (is.null(t)) {
    return(list(refusal = refusal("bad_request", paste0(
      name, " is a ", type_name(x), ": ", what, " show data.frames, matrices and vectors"))))
  }
  t$x <- x
  t
}

cell_text <- function(col, limit) {
  out <- if (inherits(col, "POSIXt")) {
    text <- format(col, "%Y-%m-%d %H:%M:%S")
    present <- text[!is.na(text)]
    if (length(present) && all(endsWith(present, " 00:00:00"))) substr(text, 1L, 10L) else text
  } else {
    as.character(col)
  }
  out[is.na(col)] <- NA_character_
  long <- !is.na(out) & nchar(out) > limit
  out[long] <- paste0(substr(out[long], 1L, limit - 1L), "\u2026")
  list(text = out, cut = sum(long))
}

# -- the view ---------------------------------------------------------------------------------

# The position (from 1) of a column named, or at a position (from 0); bad_request otherwise.
column_at <- function(t, wanted) {
  ncols <- length(t$names)
  if (is.numeric(wanted)) {
    if (wanted < ncols) return(as.integer(wanted) + 1L)
    bad_request(paste0("column ", commas(wanted), " is out of range: the value has ",
                       commas(ncols), if (ncols == 1L) " column" else " columns"))
  }
  at <- match(wanted, t$names)
  if (is.na(at)) bad_request(paste0("No column named ", py_repr(substr(wanted, 1L, 100L), 110L)))
  at
}

# What a view asks of table `t`: sort keys (positions from 1, desc) and the filter's code
# over the columns it names. Reads no data (column classes only).
view_plan <- function(t, view) {
  keys <- lapply(view$sort, function(k) list(at = column_at(t, k$column), desc = k$desc))
  code <- NULL
  used <- integer(0)
  if (!is.null(view$filter)) {
    resolve <- function(column) {
      at <- column_at(t, column)
      used <<- c(used, at)
      list(name = t$names[at], col = t$column(at))
    }
    code <- filter_code(view$filter, resolve)
  }
  list(keys = keys, filter = code, used = unique(used))
}

# Row numbers (from 1) in the view's order, kept where its filter holds.
plan_rows <- function(t, plan) {
  rows <- if (length(plan$keys)) {
    columns <- lapply(plan$keys, function(k) t$column(k$at))
    args <- c(unname(columns), list(decreasing = vapply(plan$keys, function(k) k$desc, TRUE),
                                    na.last = TRUE, method = "radix"))
    do.call(order, args)
  } else {
    seq_len(t$n)
  }
  if (!is.null(plan$filter)) {
    data <- lapply(plan$used, t$column)
    names(data) <- t$names[plan$used]
    keep <- filter_mask(plan$filter, data, t$n)
    rows <- rows[keep[rows]]
  }
  rows
}

# plan_rows under `ms`, the last result kept for the same value, view and execution:
# list(rows) or list(refusal).
view_rows <- function(name, t, plan, ec, ms) {
  key <- paste(name, ec, t$n, paste(t$names, collapse = "\u0001"),
               paste(vapply(plan$keys, function(k) paste(k$at, k$desc), ""), collapse = ","),
               if (is.null(plan$filter)) "" else plan$filter, sep = "\u0002")
  if (identical(state$rows_key, key)) return(list(rows = state$rows_order))
  made <- guarded(function() plan_rows(t, plan), ms)
  if (!is.null(made$error)) {
    return(list(refusal = refusal("unprocessable", paste0(
      "Sorting or filtering ", name, " (", type_name(t$x), ") ", made$error))))
  }
  state$rows_key <- key
  state$rows_order <- made$value
  list(rows = made$value)
}

sort_text <- function(t, view) {
  if (!length(view$sort)) return(NULL)
  paste(vapply(view$sort, function(k) paste0(k$column, ":", if (k$desc) "desc" else "asc"), ""),
        collapse = ",")
}

view_json <- function(view) {
  list(sort = I(lapply(view$sort, function(k) list(column = k$column, desc = k$desc))),
       filter = view$filter)
}

# -- rows ---------------------------------------------------------------------------------------

# Listed column positions (from 0), each checked to exist: the first past the last column
# is a bad request (rows, profile, code).
checked_positions <- function(listed, ncols) {
  beyond <- listed[listed >= ncols]
  if (length(beyond)) {
    bad_request(paste0("column ", commas(beyond[1L]), " is out of range: the value has ",
                       commas(ncols), if (ncols == 1L) " column" else " columns"))
  }
  listed
}

# The column positions (from 0) asked for: listed (each must exist) or a range.
positions_of <- function(fields, ncols) {
  listed <- fields$columns
  if (!is.null(listed)) return(checked_positions(listed, ncols))
  start <- fields$column_start
  width <- fields$max_columns
  stop <- if (is.null(fields$column_stop)) start + width else fields$column_stop
  stop <- min(stop, start + width, ncols)
  if (stop > start) seq(start, stop - 1) else numeric(0)
}

rows_op <- function(fields, ec) {
  name <- fields$name
  t <- table_named(name)
  if (!is.null(t$refusal)) return(t$refusal)
  view <- fields$view
  prepared <- tryCatch(list(positions = positions_of(fields, length(t$names)),
                            plan = view_plan(t, view)),
                       ks_bad_request = function(e) e)
  if (inherits(prepared, "ks_bad_request")) {
    return(refusal("bad_request", conditionMessage(prepared)))
  }
  plan <- prepared$plan
  positions <- prepared$positions
  order_rows <- NULL
  if (length(plan$keys) || !is.null(plan$filter)) {
    made <- view_rows(name, t, plan, ec, fields$sort_ms)
    if (!is.null(made$refusal)) return(made$refusal)
    order_rows <- made$rows
  }
  span <- if (is.null(order_rows)) t$n else length(order_rows)
  first <- fields$offset + 1
  last <- min(span, fields$offset + fields$limit)
  picked <- if (first > last) integer(0) else seq(first, last)
  if (!is.null(order_rows)) picked <- order_rows[picked]
  cut_cells <- 0L
  read <- guarded(function() lapply(positions, function(p) {
    cells <- cell_text(t$column(p + 1)[picked], fields$cell_chars)
    cut_cells <<- cut_cells + cells$cut
    cells$text
  }), fields$time_guard_ms)
  if (!is.null(read$error)) {
    return(refusal("unprocessable", paste0("Reading rows of ", name, " (", type_name(t$x),
                                           ") ", read$error)))
  }
  columns_text <- read$value
  labels <- if (is.null(t$labels) || is.numeric(t$labels)) as.character(picked)
            else as.character(t$labels[picked])
  out_rows <- lapply(seq_along(picked), function(i) {
    I(vapply(columns_text, function(col) col[i], ""))
  })
  dtype <- function(col) if (is.factor(col)) "factor" else class(col)[1L]
  list(rows = list(
    name = name, kind = t$kind, type = type_name(t$x),
    shape = I(if (t$kind == "series") t$n else c(t$n, length(t$names))),
    total_rows = t$n, offset = fields$offset, limit = fields$limit,
    columns = I(lapply(positions, function(p) list(name = t$names[p + 1],
                                                   dtype = dtype(t$column(p + 1)),
                                                   position = p))),
    columns_total = length(t$names), index_name = NULL, index = I(labels),
    rows = I(out_rows), view = view_json(view), sort = sort_text(t, view),
    filter = view$filter, filtered_rows = if (is.null(plan$filter)) NULL else length(order_rows),
    cells_truncated = cut_cells, cells_unread = 0L, changed_at = state$seen[[name]]$at
  ))
}

delete_op <- function(fields, ec) {
  name <- fields$name
  if (!exists(name, envir = globalenv(), inherits = FALSE)) {
    return(refusal("not_found", paste0("Variable not found: ", name)))
  }
  observe(ls(globalenv(), all.names = TRUE, sorted = FALSE), ec, 100L)  # known before it goes
  rm(list = name, envir = globalenv())
  observe(ls(globalenv(), all.names = TRUE, sorted = FALSE), ec, 100L)
  list(deleted = name)
}
