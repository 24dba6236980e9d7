# The R probe's entry point: decode a request, run one operation, publish the reply.

call <- function(encoded) {
  reply <- tryCatch(
    {
      request <- jsonlite::fromJSON(rawToChar(jsonlite::base64_dec(encoded)),
                                    simplifyVector = FALSE)
      dispatch(request)
    },
    interrupt = function(e) list(ok = FALSE, interrupted = TRUE, error = "interrupted"),
    error = function(e) list(ok = FALSE, error = paste("probe error:",
                                                       cut_text(conditionMessage(e), 200L)$text))
  )
  if (is.null(reply$ok)) reply$ok <- TRUE
  reply$probe_id <- state$probe_id
  emit(reply)
  invisible(NULL)
}

emit <- function(reply) {
  text <- tryCatch({
    vars <- reply$variables
    if (is.null(vars)) to_json(reply) else {
      reply$variables <- NULL
      head <- to_json(reply)  # an object: its closing brace gives way to the variables
      paste0(substr(head, 1L, nchar(head) - 1L), ",\"variables\":", variables_json(vars), "}")
    }
  }, error = function(e) paste0("{\"ok\":false,\"error\":\"reply could not be encoded: ",
                                gsub("[^A-Za-z0-9 ._:-]", " ", conditionMessage(e)),
                                "\",\"probe_id\":\"", state$probe_id, "\"}"))
  display <- getOption("jupyter.base_display_func")
  if (is.function(display)) {
    display(structure(list(text), names = REPLY_MIME), NULL)
  } else {  # another R kernel: our output, which only our request's parent sees
    cat(REPLY_MARKER, text, "\n", sep = "")
  }
}

dispatch <- function(request) {
  op <- request$op
  if (!is.character(op) || length(op) != 1L) return(bad("op"))
  switch(op,
         ping = list(),
         snapshot = snapshot(request),
         detail = detail(request),
         rows = rows_op(request),
         delete = delete_op(request),
         list(ok = FALSE, bad_request = TRUE, error = "unknown op"))
}

bad <- function(what) {
  list(ok = FALSE, bad_request = TRUE, error = paste0("Invalid request: ", what))
}

int_arg <- function(request, key, default, low, high) {
  value <- request[[key]]
  if (is.null(value)) return(default)
  if (!is.numeric(value) || length(value) != 1L || value != floor(value) ||
      value < low || value > high) stop(key, call. = FALSE)
  as.integer(value)
}

ec_arg <- function(request, key) {
  value <- request[[key]]
  if (is.numeric(value) && length(value) == 1L) as.integer(value) else NULL
}

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

valid_sort <- function(how) {
  if (!is.character(how) || length(how) != 1L) return(FALSE)
  parts <- strsplit(how, ":", fixed = TRUE)[[1L]]
  length(parts) %in% 1:2 && parts[1L] %in% SORTS &&
    (length(parts) == 1L || parts[2L] %in% SORT_DIRECTIONS)
}

name_filter <- function(pattern) {
  if (is.null(pattern) || identical(pattern, "")) return(NULL)
  if (!is.character(pattern) || length(pattern) != 1L || nchar(pattern) > MAX_FILTER_CHARS) {
    stop("filter", call. = FALSE)
  }
  if (!grepl("[*?[]", pattern)) pattern <- paste0("*", pattern, "*")
  utils::glob2rx(tolower(pattern))
}

# -- operations ---------------------------------------------------------------------------

snapshot <- function(request) {
  parsed <- tryCatch(list(
    include = unlist(request$include),
    offset = int_arg(request, "offset", 0L, 0L, .Machine$integer.max),
    limit = int_arg(request, "limit", DEFAULT_LIMIT, 0L, MAX_LIMIT),
    preview = int_arg(request, "preview_chars", DEFAULT_PREVIEW, 10L, MAX_PREVIEW),
    guard_ms = int_arg(request, "time_guard_ms", DEFAULT_GUARD_MS, 1L, MAX_GUARD_MS),
    budget_ms = int_arg(request, "budget_ms", DEFAULT_BUDGET_MS, 1L, 60000L),
    sort = if (is.null(request$sort)) "name" else request$sort,
    pattern = name_filter(request$filter)
  ), error = function(e) e)
  if (inherits(parsed, "error")) return(bad(conditionMessage(parsed)))
  if (!all(parsed$include %in% GROUPS)) return(bad("include"))
  if (!valid_sort(parsed$sort)) return(bad("sort"))
  started <- now_ms()
  ec <- ec_arg(request, "ec")
  all <- ls(globalenv(), all.names = TRUE, sorted = FALSE)
  observe(all, ec, parsed$guard_ms)
  names <- visible_names(all, parsed$include)
  if (!is.null(parsed$pattern)) {
    types <- vapply(names, function(n) tolower(class(value_of(n))[1L]), "")
    names <- names[grepl(parsed$pattern, tolower(names)) | grepl(parsed$pattern, types)]
  }
  order <- sort_names(names, parsed$sort)
  page <- order[seq_len(max(0L, min(length(order) - parsed$offset, parsed$limit))) +
                  parsed$offset]
  since <- ec_arg(request, "since_ec")
  if (is.null(since) && !is.null(ec)) since <- ec - 1L
  variables <- vector("list", length(page))
  for (i in seq_along(page)) {
    name <- page[i]
    cheap <- now_ms() - started > parsed$budget_ms
    e <- if (bindingIsActive(name, globalenv())) {
      active_entry(name)
    } else {
      entry(name, get(name, envir = globalenv(), inherits = FALSE), parsed$preview,
            parsed$guard_ms, cheap)
    }
    if (cheap && is.null(e$error) && e$kind == "object") e$error <- "skipped: time budget spent"
    ch <- change_of(name, since)
    e["change"] <- ch$change
    e["changed_at"] <- list(ch$at)
    e["changes"] <- list(I(ch$changes))
    variables[[i]] <- e
  }
  list(total = length(names), variables = variables, removed = I(removed_since(since)),
       execution_count = if (is.null(ec)) NULL else ec + 1L)
}

active_entry <- function(name) {
  list(name = name, type = "active binding", qualname = "active binding", kind = "object",
       size = NULL, shape = NULL, dtype = NULL, nbytes = NULL,
       preview = "<active binding>", truncated = FALSE,
       error = "active binding: not evaluated")
}
