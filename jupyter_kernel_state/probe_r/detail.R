# The R probe's `detail` operation: one variable, or a child reached by access keys.
# Access keys: "i:<n>" (the n-th element of a list or column of a data.frame),
# "n:<name>" (a binding of an environment), "@:<slot>" (a slot of an S4 object).

detail <- function(fields, ec) {
  name <- fields$name
  path <- fields$path
  if (!exists(name, envir = globalenv(), inherits = FALSE)) {
    return(refusal("not_found", paste0("Variable not found: ", name)))
  }
  if (bindingIsActive(name, globalenv())) {
    out <- active_entry(name)
    out[c("repr", "repr_truncated", "attributes_total", "children_total")] <-
      list("<active binding>", FALSE, 0L, 0L)
    out$attributes <- list()
    out$children <- list()
    return(list(variable = out))
  }
  observe(ls(globalenv(), all.names = TRUE, sorted = FALSE), ec, fields$time_guard_ms)
  target <- get(name, envir = globalenv(), inherits = FALSE)
  for (key in path) {
    target <- child(target, key)
    if (inherits(target, "ks_missing")) {
      return(refusal("not_found", paste0("Child not found: ", substr(key, 1L, 200L))))
    }
  }
  out <- complete(entry(name, target, fields$preview_chars, fields$time_guard_ms))
  out <- c(out, describe_detail(target, fields$max_chars, fields$time_guard_ms))
  since <- since_of(fields$since_ec, ec)
  if (!length(path)) {
    ch <- change_of(name, since)
    out["change"] <- ch$change
    out["changed_at"] <- list(ch$at)
    out["changes"] <- list(I(ch$changes))
  } else {
    out["change"] <- "unchanged"
    out["changed_at"] <- list(NULL)
    out["changes"] <- list(I(character(0)))
  }
  list(variable = out)
}

missing_child <- structure(list(), class = "ks_missing")

child <- function(x, key) {
  kind <- substr(key, 1L, 2L)
  rest <- substr(key, 3L, nchar(key))
  if (kind == "i:" && (is.list(x) || is.data.frame(x)) && grepl("^[0-9]{1,9}$", rest)) {
    i <- as.integer(rest)
    if (i >= 1L && i <= spine_length(x)) return(.subset2(x, i))
  } else if (kind == "n:" && is.environment(x)) {
    if (exists(rest, envir = x, inherits = FALSE) && !bindingIsActive(rest, x)) {
      return(get(rest, envir = x, inherits = FALSE))
    }
  } else if (kind == "@:" && isS4(x)) {
    if (rest %in% methods::slotNames(x)) return(methods::slot(x, rest))
  }
  missing_child
}

# The number of elements of a list (columns of a data.frame), without dispatch on its class
# (unclass copies the spine of a list: pointers, not data).
spine_length <- function(x) {
  if (is.data.frame(x)) return(length(attr(x, "names")))
  if (is.object(x)) length(unclass(x)) else length(x)
}

describe_detail <- function(x, max_chars, guard_ms) {
  out <- list(repr = "", repr_truncated = FALSE, attributes = list(), attributes_total = 0L,
              children = list(), children_total = 0L, columns = NULL, columns_total = NULL,
              head = NULL, keys = NULL, keys_total = NULL, signature = NULL, doc = NULL,
              llm_repr = NULL)
  r <- guarded(function() repr_lines(x), guard_ms * 5)
  text <- if (is.null(r$error)) paste(r$value, collapse = "\n") else
    paste0("<", class(x)[1L], " object: print ", r$error, ">")
  cut <- cut_text(text, max_chars)
  out$repr <- cut$text
  out$repr_truncated <- cut$truncated
  attrs <- if (is.environment(x) || is.function(x)) NULL else attributes(x)
  attrs <- attrs[setdiff(names(attrs), c("names", "row.names", "class", "dim", "dimnames",
                                         "levels"))]
  out$attributes_total <- length(attrs)
  out$attributes <- lapply(utils::head(names(attrs), MAX_ATTRIBUTES), function(a) {
    list(name = a, type = class(attrs[[a]])[1L])
  })
  kids <- children_of(x)
  out$children <- kids$items
  out$children_total <- kids$total
  if (is.data.frame(x) || (is.atomic(x) && length(attr(x, "dim")) == 2L && !is.object(x))) {
    out <- c(out[setdiff(names(out), c("columns", "columns_total", "head"))],
             table_parts(x, guard_ms))
  }
  if (is.factor(x)) {
    levels <- attr(x, "levels")
    out$keys <- I(utils::head(levels, MAX_KEYS))
    out$keys_total <- length(levels)
  } else if (is.list(x) && !is.data.frame(x) && !is.null(attr(x, "names"))) {
    nm <- attr(x, "names")
    out$keys <- I(utils::head(nm, MAX_KEYS))
    out$keys_total <- length(nm)
  } else if (is.environment(x)) {
    nm <- sort(ls(x, all.names = TRUE), method = "radix")
    out$keys <- I(utils::head(nm, MAX_KEYS))
    out$keys_total <- length(nm)
  }
  if (is.function(x)) out$signature <- signature_of(x)
  out
}

repr_lines <- function(x) {
  if (is.function(x)) return(utils::head(deparse(x, width.cutoff = 100L), 200L))
  if (is.environment(x) && !is.object(x)) {
    nm <- sort(ls(x, all.names = TRUE), method = "radix")
    return(c(paste0("<environment: ", length(nm), " objects>"), utils::head(nm, MAX_KEYS)))
  }
  if (isS4(x)) return(user_eval(quote(utils::capture.output(methods::show(x))), x))
  if (is.data.frame(x)) {
    return(user_eval(quote(utils::capture.output(base::print(utils::head(x, 20L)))), x))
  }
  if (is.atomic(x) && !is.object(x) && is.null(attr(x, "dim"))) {
    n <- length(x)
    shown <- utils::capture.output(print(x[seq_len(min(n, REPR_ITEMS))]))
    return(if (n > REPR_ITEMS) c(shown, paste0("\u2026 and ", fmt(n - REPR_ITEMS), " more"))
           else shown)
  }
  if (is.list(x) && !is.object(x)) {
    return(utils::capture.output(utils::str(x, max.level = 1L, list.len = MAX_CHILDREN,
                                            vec.len = 3L, nchar.max = 200L)))
  }
  if (is.atomic(x) && !is.object(x)) {  # matrices and arrays: the first rows and columns
    d <- attr(x, "dim")
    if (length(d) == 2L) {
      return(utils::capture.output(print(x[seq_len(min(d[1L], REPR_ROWS)),
                                           seq_len(min(d[2L], HEAD_COLUMNS)), drop = FALSE])))
    }
    return(utils::capture.output(utils::str(x)))
  }
  user_eval(quote(utils::capture.output(base::print(x))), x)
}

children_of <- function(x) {
  items <- list()
  total <- 0L
  if (is.data.frame(x) || (is.list(x) && !isS4(x))) {
    nm <- attr(x, "names")
    total <- spine_length(x)
    for (i in seq_len(min(total, MAX_CHILDREN))) {
      item <- .subset2(x, i)
      label <- if (!is.null(nm) && nzchar(nm[i])) nm[i] else paste0("[[", i, "]]")
      items[[i]] <- list(access_key = paste0("i:", i), label = label,
                         type = class(item)[1L], preview = short_preview(item))
    }
  } else if (is.environment(x)) {
    nm <- sort(ls(x, all.names = TRUE), method = "radix")
    total <- length(nm)
    for (i in seq_len(min(total, MAX_CHILDREN))) {
      active <- bindingIsActive(nm[i], x)
      item <- if (active) NULL else get(nm[i], envir = x, inherits = FALSE)
      items[[i]] <- list(access_key = paste0("n:", nm[i]), label = nm[i],
                         type = if (active) "active binding" else class(item)[1L],
                         preview = if (active) "<active binding>" else short_preview(item))
    }
  } else if (isS4(x)) {
    slots <- methods::slotNames(x)
    total <- length(slots)
    for (i in seq_len(min(total, MAX_CHILDREN))) {
      item <- methods::slot(x, slots[i])
      items[[i]] <- list(access_key = paste0("@:", slots[i]), label = paste0("@", slots[i]),
                         type = class(item)[1L], preview = short_preview(item))
    }
  }
  list(items = items, total = total)
}

table_parts <- function(x, guard_ms) {
  frame <- is.data.frame(x)
  d <- if (frame) c(.row_names_info(x, 2L), length(attr(x, "names"))) else attr(x, "dim")
  cols <- if (frame) attr(x, "names") else colnames(x)
  if (is.null(cols)) cols <- paste0("[,", seq_len(d[2L]), "]")
  shown <- seq_len(min(d[2L], MAX_COLUMNS))
  columns <- lapply(shown, function(j) {
    list(name = cols[j], dtype = if (frame) class(.subset2(x, j))[1L] else typeof(x))
  })
  r <- guarded(function() {
    rows <- seq_len(min(d[1L], HEAD_ROWS))
    cells <- lapply(seq_len(min(d[2L], HEAD_COLUMNS)), function(j) {
      col <- if (frame) .subset2(x, j) else x[, j]
      if (is.atomic(col) && is.null(attr(col, "dim"))) {
        v <- if (is.object(col)) user_eval(quote(base::format(x)), col[rows])
             else plain_items(unname(col), length(rows))
        vapply(v, function(s) cut_text(s, MAX_CELL)$text, "", USE.NAMES = FALSE)
      } else {
        rep(short_preview(col), length(rows))
      }
    })
    lapply(rows, function(i) I(vapply(cells, function(c) c[[i]], "")))
  }, guard_ms * 5)
  index <- if (frame) {
    rn <- attr(x, "row.names")
    as.character(rn[seq_len(min(d[1L], HEAD_ROWS))])
  } else {
    NULL
  }
  list(columns = columns, columns_total = as.integer(d[2L]),
       head = if (is.null(r$error)) {
         list(columns = I(cols[seq_len(min(d[2L], HEAD_COLUMNS))]), rows = r$value,
              index = if (is.null(index)) NULL else I(index))
       } else NULL)
}
