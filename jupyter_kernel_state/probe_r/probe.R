# jupyter_kernel_state probe for R kernels (IRkernel). Sent by the server as source and
# evaluated in a private environment (parent: baseenv()), held in
# options(jupyter_kernel_state.probe): nothing is assigned in .GlobalEnv.
#
# A call decodes its request from base64 JSON (names are data, looked up with
# get(name, envir = .GlobalEnv, inherits = FALSE)), and publishes its reply through
# IRkernel's display function as one display_data of MIME type REPLY_MIME: IRkernel drops
# every other output of a silent request and answers no user_expressions. Values are
# treated as hostile: only the first items are formatted, strings are cut before they are
# quoted, user-defined methods (S3 format/print, S4 show, `[`, length) run under a time
# guard, and object.size only where it is O(1).
# ASCII only: this file travels inside an R string.

REPLY_MIME <- "application/x-jupyter-kernel-state"
REPLY_MARKER <- "@@jupyter_kernel_state_reply@@ "
DEFAULT_GUARD_MS <- 100L
HEAD_ITEMS <- 20L            # elements formatted for a preview
ITEM_CHARS <- 80L            # a string element is cut to this before it is quoted
CHEAP_STRINGS <- 100000L     # object.size of longer character vectors is O(n): skipped
SMALL_VALUE <- 16L           # atomic vectors this short are fingerprinted whole
MAX_CHILDREN <- 100L
MAX_ATTRIBUTES <- 100L
MAX_KEYS <- 100L
MAX_COLUMNS <- 200L
HEAD_ROWS <- 5L
HEAD_COLUMNS <- 20L
MAX_CELL <- 200L
REPR_ITEMS <- 1000L
REPR_ROWS <- 20L
MAX_REMOVED <- 1000L
MAX_CHANGES <- 5L

state <- new.env(parent = emptyenv())

# `spec`: probe/protocol.py's operations and constants as JSON (check.R reads them).
install <- function(spec) {
  state$spec <- jsonlite::fromJSON(spec, simplifyVector = FALSE)
  # No random numbers: they would create or move the user's .Random.seed.
  state$probe_id <- paste0(format(Sys.time(), "%Y%m%d%H%M%OS6"), "-", Sys.getpid())
  state$seen <- new.env(hash = TRUE, parent = emptyenv())
  state$names <- character(0)
  state$observed_ec <- -1L
  state$removed <- integer(0)  # named: the execution count at which each name went
  timeline_reset()
  invisible(state$probe_id)
}

# -- small helpers ------------------------------------------------------------------------

now_ms <- function() proc.time()[["elapsed"]] * 1000

cut_text <- function(s, n) {
  s <- if (is.character(s) && length(s) == 1L) enc2utf8(s) else
    tryCatch(enc2utf8(as.character(s)[1L]), error = function(e) "?")
  if (is.na(s)) s <- "NA"
  k <- nchar(s, type = "chars", allowNA = TRUE)
  if (is.na(k)) {  # invalid in its encoding: bytes, escaped
    s <- iconv(s, "", "ASCII", sub = "byte")
    k <- nchar(s, type = "bytes")
  }
  if (k <= n) return(list(text = s, truncated = FALSE))
  list(text = paste0(substr(s, 1L, max(1L, n - 1L)), "\u2026"), truncated = TRUE)
}

quiet <- function(f) {
  withCallingHandlers(f(), warning = function(w) invokeRestart("muffleWarning"),
                      message = function(m) invokeRestart("muffleMessage"))
}

# Runs user-reachable code (method dispatch) under a time limit; never raises.
guarded <- function(f, ms) {
  on.exit(setTimeLimit(elapsed = Inf), add = TRUE)
  setTimeLimit(elapsed = max(ms, 1) / 1000, transient = TRUE)
  tryCatch(list(value = quiet(f), error = NULL), error = function(e) {
    msg <- tryCatch(conditionMessage(e), error = function(e2) "")
    cls <- tryCatch(class(e)[1L], error = function(e2) "error")
    list(value = NULL, error = if (grepl("time limit", msg, fixed = TRUE)) "timed out"
                               else paste0("raised ", cls, ": ", cut_text(msg, 100L)$text))
  })
}

type_name <- function(x) class(x)[1L]

is_plain <- function(x) !is.object(x)

cheap_nbytes <- function(x) {
  if (is.data.frame(x)) {
    total <- 0
    for (i in seq_len(length(attr(x, "names")))) {
      col <- .subset2(x, i)
      if (!is.atomic(col)) return(NULL)
      size <- cheap_nbytes(col)
      if (is.null(size)) return(NULL)
      total <- total + size
    }
    return(total)
  }
  if (!is.atomic(x) || (is.character(x) && length(x) > CHEAP_STRINGS)) return(NULL)
  as.numeric(utils::object.size(x))
}

# Whether any of `s` (text) is longer than `n` characters: its bytes first (O(1)), its
# characters only where the bytes say it may be.
longer_than <- function(s, n) {
  s <- s[!is.na(s)]
  maybe <- nchar(s, type = "bytes") > n
  any(maybe) && any(nchar(s[maybe], type = "chars", allowNA = TRUE) > n, na.rm = TRUE)
}

# `s` cut to ITEM_CHARS characters each, marked (attribute "cut") when one was longer.
cut_items <- function(s) {
  out <- substr(s, 1L, ITEM_CHARS)
  if (longer_than(s, ITEM_CHARS)) attr(out, "cut") <- TRUE
  out
}

# The first `k` items of a plain atomic vector as short texts (no dispatch: not an object);
# attribute "cut" when a string was cut to ITEM_CHARS before it was quoted.
plain_items <- function(x, k) {
  h <- x[seq_len(min(length(x), k))]
  cut <- FALSE
  if (is.character(h)) {
    cut <- longer_than(h, ITEM_CHARS)
    out <- encodeString(substr(h, 1L, ITEM_CHARS), quote = "\"")
    out[is.na(h)] <- "NA"
  } else if (is.double(h)) {
    out <- sprintf("%.7g", as.vector(h))  # C-level; as.character(<double>) is slow
  } else if (is.complex(h)) {
    out <- format(as.vector(h), digits = 7L, trim = TRUE)
  } else {
    out <- as.character(as.vector(h))
  }
  nm <- attr(h, "names")
  if (!is.null(nm)) out <- paste0(substr(nm, 1L, ITEM_CHARS), "=", out)
  if (cut) attr(out, "cut") <- TRUE
  out
}

# Items joined by `sep` within `limit` characters; truncated when the text was cut, items
# were left out, or an item was itself cut (attribute "cut").
join_items <- function(items, total, limit, sep = " ") {
  text <- paste(items, collapse = sep)
  more <- total > length(items)
  if (more) text <- paste0(text, if (length(items)) sep, "\u2026")
  r <- cut_text(text, limit)
  r$truncated <- r$truncated || more || isTRUE(attr(items, "cut"))
  r
}

signature_of <- function(f) {
  a <- tryCatch(args(f), error = function(e) NULL)
  if (is.null(a)) return("function (...)")
  lines <- deparse(a, width.cutoff = 500L)
  paste(trimws(lines[-length(lines)]), collapse = " ")
}

# Evaluates `expr` with `x` bound, in an environment whose parent is .GlobalEnv: S3
# dispatch from the probe's own environment (parent: base) would not see methods the user
# defined in the notebook, only registered ones.
user_eval <- function(expr, x) {
  env <- new.env(parent = globalenv())
  assign("x", x, envir = env)
  eval(expr, env)
}

has_method <- function(generic, classes) {
  for (cl in classes) {
    if (!is.null(utils::getS3method(generic, cl, optional = TRUE, envir = globalenv()))) {
      return(TRUE)
    }
  }
  FALSE
}

# -- one variable ---------------------------------------------------------------------------

FIELDS <- c("name", "type", "qualname", "kind", "size", "shape", "dtype", "nbytes", "preview",
            "truncated", "error")

# Every field present: `e$field <- NULL` removes a field in R; JSON wants null.
complete <- function(e, fields = FIELDS) {
  missing <- setdiff(fields, names(e))
  if (length(missing)) e[missing] <- list(NULL)
  e
}

entry <- function(name, x, limit, guard_ms, cheap = FALSE) {
  e <- list(name = name, type = "", qualname = "", kind = "object", size = NULL,
            shape = NULL, dtype = NULL, nbytes = NULL, preview = "", truncated = FALSE,
            error = NULL)
  cls <- class(x)
  e$type <- cls[1L]
  e$qualname <- paste(cls, collapse = "/")
  set_preview <- function(r) {
    e$preview <<- r$text
    e$truncated <<- isTRUE(r$truncated)
  }
  if (is.null(x)) {
    e$kind <- "none"
    e$preview <- "NULL"
  } else if (inherits(x, "classGeneratorFunction") || inherits(x, "R6ClassGenerator")) {
    e$kind <- "class"
    set_preview(cut_text(paste0("<class ", tryCatch(as.character(x@className)[1L],
                                                     error = function(err) cls[1L]), ">"), limit))
  } else if (is.function(x)) {
    e$kind <- "callable"
    set_preview(cut_text(signature_of(x), limit))
  } else if (is.environment(x) && is_plain(x)) {
    e$kind <- "module"
    e$size <- length(x)
    env_name <- environmentName(x)
    set_preview(cut_text(paste0("<environment", if (nzchar(env_name)) paste0(": ", env_name),
                                ", ", length(x), " objects>"), limit))
  } else if (isS4(x)) {
    e$kind <- "object"
    fallback <- paste0("<S4 object of class \"", cls[1L], "\">")
    if (cheap) {
      set_preview(cut_text(fallback, limit))
    } else {
      r <- guarded(function() user_eval(quote(utils::capture.output(methods::show(x))), x),
                   guard_ms)
      if (is.null(r$error)) {
        set_preview(cut_text(paste(trimws(r$value), collapse = " "), limit))
      } else {
        set_preview(cut_text(fallback, limit))
        e$error <- paste("show()", r$error)
      }
    }
  } else if (is.data.frame(x)) {
    e <- frame_entry(e, x, limit)
  } else if (is_plain(x) && is.atomic(x)) {
    e <- atomic_entry(e, x, limit)
  } else if (is.factor(x) && !has_method("format", cls[-length(cls)])) {
    e <- factor_entry(e, x, limit)
  } else if (is_plain(x) && is.list(x)) {
    e <- list_entry(e, x, limit)
  } else if (is.object(x)) {
    e <- object_entry(e, x, limit, guard_ms, cheap)
  } else {  # symbols, calls, formulas without class, external pointers
    e$kind <- "object"
    set_preview(cut_text(paste(deparse(x, width.cutoff = 200L, nlines = 3L), collapse = " "),
                         limit))
  }
  e
}

atomic_entry <- function(e, x, limit) {
  n <- length(x)
  dims <- attr(x, "dim")
  e$dtype <- typeof(x)
  e$size <- n
  e$nbytes <- cheap_nbytes(x)
  if (!is.null(dims)) {
    e$kind <- "array"
    e$shape <- I(as.integer(dims))
  } else if (n == 1L && is.null(attr(x, "names"))) {
    e$kind <- switch(typeof(x), logical = "boolean", character = "string", raw = "bytes",
                     "number")
    e$size <- if (is.character(x) && !is.na(x)) nchar(x, type = "chars", allowNA = TRUE) else NULL
    e$shape <- NULL
  } else {
    e$kind <- "series"
    e$shape <- I(n)
  }
  r <- join_items(plain_items(x, HEAD_ITEMS), n, limit)
  e$preview <- r$text
  e$truncated <- r$truncated
  e
}

factor_entry <- function(e, x, limit) {
  levels <- attr(x, "levels")
  n <- length(attr(x, "levels"))
  # .subset: the integer codes, without `[.factor` and without the attributes.
  codes <- .subset(x, seq_len(min(length(x), HEAD_ITEMS)))
  labels <- levels[codes]
  labels[is.na(labels)] <- "NA"
  e$kind <- "series"
  e$dtype <- "factor"
  e$size <- length(x)
  e$shape <- I(length(x))
  e$nbytes <- cheap_nbytes(x)
  first <- levels[seq_len(min(n, 5L))]
  shown <- encodeString(substr(first, 1L, ITEM_CHARS), quote = "\"")
  head <- paste0("Factor w/ ", n, " level", if (n != 1L) "s", " ",
                 paste(shown, collapse = ","), if (n > 5L) ",\u2026", ":")
  items <- c(head, substr(labels, 1L, ITEM_CHARS))
  if (longer_than(c(first, labels), ITEM_CHARS)) attr(items, "cut") <- TRUE
  r <- join_items(items, length(x) + 1L, limit)
  e$preview <- r$text
  e$truncated <- r$truncated
  e
}

frame_entry <- function(e, x, limit) {
  cols <- attr(x, "names")
  rows <- .row_names_info(x, 2L)
  e$kind <- "dataframe"
  e$shape <- I(c(as.integer(rows), length(cols)))
  e$size <- as.integer(rows)
  e$nbytes <- cheap_nbytes(x)
  parts <- character(0)
  for (i in seq_len(min(length(cols), HEAD_COLUMNS))) {
    parts <- c(parts, paste0(cols[i], ":", type_name(.subset2(x, i))))
  }
  if (length(cols) > length(parts)) parts <- c(parts, "\u2026")
  text <- paste0(if (rows < 1000) rows else format(rows, big.mark = ","), "\u00d7", length(cols))
  if (length(parts)) text <- paste0(text, " \u2014 ", paste(parts, collapse = ", "))
  r <- cut_text(text, limit)
  e$preview <- r$text
  e$truncated <- r$truncated || length(cols) > HEAD_COLUMNS
  e
}

list_entry <- function(e, x, limit) {
  n <- length(x)
  nm <- attr(x, "names")
  named <- !is.null(nm) && all(nzchar(nm))
  e$kind <- if (named) "mapping" else "sequence"
  e$size <- n
  items <- character(0)
  cut <- FALSE
  for (i in seq_len(min(n, 10L))) {
    item <- short_preview(.subset2(x, i))
    cut <- cut || isTRUE(attr(item, "cut"))
    items <- c(items, if (is.null(nm) || !nzchar(nm[i])) item else paste0(nm[i], " = ", item))
  }
  if (cut) attr(items, "cut") <- TRUE
  # As R writes it: list(a = 1, b = "two"), the closing parenthesis kept when cut.
  r <- join_items(items, n, limit - 6L, sep = ", ")
  e$preview <- paste0("list(", r$text, ")")
  e$truncated <- r$truncated
  e
}

# A few characters about a value inside a container: never user code.
short_preview <- function(x) {
  if (is.null(x)) return("NULL")
  if (is_plain(x) && is.atomic(x) && length(x) == 1L && is.null(attr(x, "dim"))) {
    item <- plain_items(x, 1L)
    r <- cut_text(item, 40L)
    return(if (r$truncated || isTRUE(attr(item, "cut"))) structure(r$text, cut = TRUE)
           else r$text)
  }
  if (is.data.frame(x)) {
    return(paste0("<", type_name(x), " ", .row_names_info(x, 2L), "\u00d7",
                  length(attr(x, "names")), ">"))
  }
  n <- if (is_plain(x) && !is.environment(x)) length(x) else NA
  paste0("<", type_name(x), if (!is.na(n)) paste0("[", n, "]"), ">")
}

object_entry <- function(e, x, limit, guard_ms, cheap) {
  cls <- class(x)
  base_type <- typeof(x)
  e$kind <- if (is.atomic(x) && base_type != "NULL") "series" else "object"
  fallback <- paste0("<", cls[1L], " object>")
  if (cheap) {
    e$preview <- fallback
    return(e)
  }
  r <- guarded(function() {
    n <- user_eval(quote(base::length(x)), x)
    if (is.atomic(x)) {
      h <- user_eval(quote(x[seq_len(min(base::length(x), 20L))]), x)
      items <- user_eval(quote(base::format(x)), h)
      list(n = n, text = join_items(cut_items(items), n, limit))
    } else if (has_method("format", cls)) {
      list(n = n, text = cut_text(paste(user_eval(quote(base::format(x)), x), collapse = " "),
                                  limit))
    } else if (has_method("print", cls) || has_method("toString", cls)) {
      out <- user_eval(quote(utils::capture.output(base::print(x))), x)
      list(n = n, text = cut_text(paste(trimws(out), collapse = " "), limit))
    } else {
      list(n = n, text = cut_text(fallback, limit))
    }
  }, guard_ms)
  if (is.null(r$error)) {
    e$size <- if (is.numeric(r$value$n) && length(r$value$n) == 1L) as.integer(r$value$n)
    if (e$kind == "series" && !is.null(e$size)) {
      e$shape <- I(e$size)
      e$dtype <- base_type
    }
    e$preview <- r$value$text$text
    e$truncated <- isTRUE(r$value$text$truncated)
  } else {
    e$preview <- fallback
    e$error <- paste("format", r$error)
  }
  e
}
