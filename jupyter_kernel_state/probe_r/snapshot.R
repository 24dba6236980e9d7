# The R probe's `snapshot` operation: a page of the visible global variables.

# -- the namespace ------------------------------------------------------------------------

groups_of <- function(name, x) {
  group <- if (startsWith(name, ".")) "private" else character(0)
  if (is.function(x)) {
    c(group, if (inherits(x, "classGeneratorFunction")) "classes" else "callables")
  } else if (is.environment(x)) {
    c(group, if (inherits(x, "R6ClassGenerator")) "classes" else if (!is.object(x)) "modules")
  } else {
    group
  }
}

visible_names <- function(all, include) {
  out <- character(0)
  for (name in all) {
    if (bindingIsActive(name, globalenv())) {
      if ("private" %in% include || !startsWith(name, ".")) out <- c(out, name)
      next
    }
    groups <- groups_of(name, get(name, envir = globalenv(), inherits = FALSE))
    if (all(groups %in% include)) out <- c(out, name)
  }
  out
}

value_of <- function(name) {
  if (bindingIsActive(name, globalenv())) return(structure(list(), class = "ks_active"))
  get(name, envir = globalenv(), inherits = FALSE)
}

# `how` is a key with an optional direction ("size:asc"); each key has its natural direction
# (name and type A to Z; size, memory and changed largest or latest first), unknowns last.
sort_names <- function(names, how) {
  parts <- strsplit(how, ":", fixed = TRUE)[[1L]]
  key <- parts[1L]
  forward <- length(parts) < 2L || parts[2L] == (if (key %in% c("name", "type")) "asc" else "desc")
  by_name <- order(tolower(names), names, method = "radix")
  if (key == "name" || !length(names)) {
    out <- names[by_name]
    return(if (forward) out else rev(out))
  }
  if (key == "type") {
    types <- vapply(names, function(n) tolower(class(value_of(n))[1L]), "")
    out <- names[order(types, tolower(names), method = "radix")]
    return(if (forward) out else rev(out))
  }
  keys <- vapply(names, function(n) {
    if (key == "size") {
      x <- value_of(n)
      if (is.object(x) || !(is.atomic(x) || is.list(x))) NA_real_ else as.numeric(length(x))
    } else if (key == "memory") {
      size <- cheap_nbytes(value_of(n))
      if (is.null(size)) NA_real_ else as.numeric(size)
    } else {
      at <- state$seen[[n]]$at
      if (is.null(at)) NA_real_ else as.numeric(at)
    }
  }, 0)
  sign <- if (forward) -1 else 1
  names[order(is.na(keys), sign * keys, tolower(names), method = "radix")]
}

name_filter <- function(pattern) {
  if (is.null(pattern) || identical(pattern, "")) return(NULL)
  if (!grepl("[*?[]", pattern)) pattern <- paste0("*", pattern, "*")
  utils::glob2rx(tolower(pattern))
}

# -- operations ---------------------------------------------------------------------------

snapshot <- function(fields, ec) {
  started <- now_ms()
  all <- ls(globalenv(), all.names = TRUE, sorted = FALSE)
  observe(all, ec, fields$time_guard_ms)
  names <- visible_names(all, fields$include)
  listed <- length(names)
  pattern <- name_filter(fields$filter)
  if (!is.null(pattern)) {
    types <- vapply(names, function(n) tolower(class(value_of(n))[1L]), "")
    names <- names[grepl(pattern, tolower(names)) | grepl(pattern, types)]
  }
  if (!is.null(fields$changed_in)) {  # the names last bound or changed at that count
    at <- vapply(names, function(n) {
      a <- state$seen[[n]]$at
      if (is.null(a)) NA_real_ else as.numeric(a)
    }, 0)
    names <- names[!is.na(at) & at == fields$changed_in]
  }
  order <- sort_names(names, fields$sort)
  offset <- min(fields$offset, length(order))
  page <- order[seq_len(max(0, min(length(order) - offset, fields$limit))) + offset]
  since <- since_of(fields$since_ec, ec)
  variables <- vector("list", length(page))
  for (i in seq_along(page)) {
    name <- page[i]
    cheap <- now_ms() - started > fields$budget_ms
    e <- if (bindingIsActive(name, globalenv())) {
      active_entry(name)
    } else {
      entry(name, get(name, envir = globalenv(), inherits = FALSE), fields$preview_chars,
            fields$time_guard_ms, cheap)
    }
    if (cheap && is.null(e$error) && e$kind == "object") e$error <- "skipped: time budget spent"
    ch <- change_of(name, since)
    e["change"] <- ch$change
    e["changed_at"] <- list(ch$at)
    e["changes"] <- list(I(ch$changes))
    variables[[i]] <- e
  }
  # total: the names listed (with include); matched: those the filter and changed_in keep.
  reply <- list(total = listed, matched = length(names), variables = variables,
                removed = I(removed_since(since)),
                execution_count = if (is.null(ec)) NULL else ec + 1L)
  # said back: the server knows it was applied
  if (!is.null(fields$changed_in)) reply$changed_in <- fields$changed_in
  reply
}

active_entry <- function(name) {
  list(name = name, type = "active binding", qualname = "active binding", kind = "object",
       size = NULL, shape = NULL, dtype = NULL, nbytes = NULL,
       preview = "<active binding>", truncated = FALSE,
       error = "active binding: not evaluated")
}

# The count changes are relative to: `since_ec`, else the one before the last execution.
since_of <- function(since_ec, ec) {
  if (!is.null(since_ec)) return(since_ec)
  if (!is.null(ec)) ec - 1L else NULL
}
