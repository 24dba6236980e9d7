# Change tracking for the R probe.
#
# IRkernel evaluates cells from its own R loop, so R's task callbacks (addTaskCallback)
# never run after a cell. Instead every probe call compares cheap fingerprints of the
# global names with those of the previous call; a difference is dated at the last user
# execution count the server has seen (`ec` in the request). The server asks after each
# user execution it shows, so the dates are those of the cells in practice.
# Fingerprints never keep a reference to a vector (that would make the user's next
# in-place change copy it): class, type, length, dims, names, and the first and last
# elements; small atomic vectors whole; environments and functions by identity.

fingerprint <- function(x, guard_ms) {
  cls <- oldClass(x)
  tp <- typeof(x)
  if (tp %in% c("environment", "closure", "builtin", "special")) {
    return(list(tag = "ref", type = tp, class = cls, ref = x))
  }
  if (is.data.frame(x)) {
    cols <- attr(x, "names")
    sample <- list()
    for (i in seq_len(min(length(cols), 5L))) {
      col <- .subset2(x, i)
      sample[[i]] <- if (is.atomic(col)) .subset(col, unique(c(seq_len(min(length(col), 3L)),
                                                                length(col)))) else typeof(col)
    }
    return(list(tag = "frame", type = tp, class = cls, n = .row_names_info(x, 2L),
                names = attr(x, "names"), sample = sample))
  }
  if (isS4(x)) return(list(tag = "s4", type = tp, class = cls))
  n <- if (is.object(x)) length_of(x, guard_ms) else length(x)
  dims <- attr(x, "dim")
  nm <- head_names(attr(x, "names"))
  if (is.atomic(x)) {
    values <- if (n <= SMALL_VALUE) .subset(x, seq_len(n)) else .subset(x, c(1:5, n))
    return(list(tag = "vector", type = tp, class = cls, n = n, dims = dims, names = nm,
                values = values))
  }
  if (is.list(x)) {
    inner <- vapply(seq_len(min(n, 5L)), function(i) {
      item <- .subset2(x, i)
      paste(typeof(item), length(item))
    }, "")
    return(list(tag = "list", type = tp, class = cls, n = n, dims = dims, names = nm,
                inner = inner))
  }
  list(tag = "other", type = tp, class = cls, n = n)
}

# length() of a classed value may run a user's method: under the guard.
length_of <- function(x, guard_ms) {
  r <- guarded(function() length(x), guard_ms)
  if (is.null(r$error) && is.numeric(r$value) && length(r$value) == 1L) r$value else -1
}

head_names <- function(nm) {
  if (is.null(nm)) return(NULL)
  c(length(nm), nm[seq_len(min(length(nm), 20L))])
}

describe_changes <- function(old, new) {
  out <- character(0)
  if (!identical(old$class, new$class)) {
    out <- c(out, paste0("class ", paste(old$class, collapse = "/"), " \u2192 ",
                         paste(new$class, collapse = "/")))
  }
  if (!identical(old$type, new$type)) {
    out <- c(out, paste0("type ", old$type, " \u2192 ", new$type))
  }
  if (identical(old$tag, "frame") && identical(new$tag, "frame")) {
    if (old$n != new$n) out <- c(out, paste0("rows ", fmt(old$n), " \u2192 ", fmt(new$n)))
    for (col in setdiff(new$names, old$names)) out <- c(out, paste0("column ", col, " added"))
    for (col in setdiff(old$names, new$names)) out <- c(out, paste0("column ", col, " removed"))
  } else if (!is.null(old$n) && !is.null(new$n) && old$n != new$n) {
    out <- c(out, paste0("len ", fmt(old$n), " \u2192 ", fmt(new$n)))
  }
  if (!identical(old$dims, new$dims) && !is.null(new$dims)) {
    out <- c(out, paste0("dim ", paste(old$dims, collapse = "\u00d7"), " \u2192 ",
                         paste(new$dims, collapse = "\u00d7")))
  }
  out[seq_len(min(length(out), MAX_CHANGES))]
}

fmt <- function(n) format(n, big.mark = ",", scientific = FALSE)

# Compares every global name with the previous call. `ec`: the last user execution count.
observe <- function(names, ec, guard_ms) {
  if (identical(ec, state$observed_ec) && identical(names, state$names)) return(invisible())
  seen <- state$seen
  at <- if (is.null(ec)) NA_integer_ else as.integer(ec)
  added <- character(0)
  modified <- list()
  for (name in names) {
    if (bindingIsActive(name, globalenv())) next  # reading it would run its function
    x <- get(name, envir = globalenv(), inherits = FALSE)
    fp <- tryCatch(fingerprint(x, guard_ms), error = function(e) list("?"))
    old <- seen[[name]]
    if (is.null(old)) {
      assign(name, list(fp = fp, first = at, at = at, changes = character(0)), envir = seen)
      added <- c(added, name)
    } else if (!identical(old$fp, fp)) {
      changes <- tryCatch(describe_changes(old$fp, fp), error = function(e) character(0))
      assign(name, list(fp = fp, first = old$first, at = at, changes = changes), envir = seen)
      modified[[name]] <- changes
    }
  }
  gone <- setdiff(state$names, names)
  timeline_add(at, "new", added)
  timeline_add(at, "modified", names(modified), modified)
  timeline_add(at, "removed", gone)
  if (length(gone)) {
    rm(list = intersect(gone, ls(seen, all.names = TRUE)), envir = seen)
    removed <- state$removed
    removed[gone] <- at
    if (length(removed) > MAX_REMOVED) removed <- utils::tail(removed, MAX_REMOVED)
    state$removed <- removed
  }
  back <- intersect(names(state$removed), names)
  if (length(back)) state$removed <- state$removed[setdiff(names(state$removed), back)]
  state$names <- names
  state$observed_ec <- ec
  invisible()
}

# (change, changed_at, changes) of a name relative to the count `since` (NULL: unknown).
change_of <- function(name, since) {
  record <- state$seen[[name]]
  if (is.null(record)) return(list(change = "unchanged", at = NULL, changes = character(0)))
  at <- if (is.na(record$at)) NULL else record$at
  if (is.null(since) || is.null(at)) {
    return(list(change = "unchanged", at = at, changes = character(0)))
  }
  if (!is.na(record$first) && record$first > since) {
    return(list(change = "new", at = at, changes = character(0)))
  }
  if (at > since) return(list(change = "modified", at = at, changes = record$changes))
  list(change = "unchanged", at = at, changes = character(0))
}

removed_since <- function(since) {
  removed <- state$removed
  if (is.null(since)) return(character(0))
  if (!length(removed)) return(character(0))
  gone <- names(removed)[!is.na(removed) & removed > since]
  if (length(gone)) sort(gone, method = "radix") else character(0)
}

# -- timelines ----------------------------------------------------------------------------
#
# What observe() saw at each execution, kept by kind (new, modified, removed) with the
# structural changes of the modified names: one record per execution (nothing per name),
# at most TIMELINE_CELLS executions and TIMELINE_NAMES names in all (an execution with
# more is kept as "too many"); what falls off the start moves `complete_after` forward.
# Changes are dated at the last user execution the server had seen when it asked (`ec`):
# when several cells ran between two questions, their changes share the last one's count.

TIMELINE_CELLS <- 1000L
TIMELINE_NAMES <- 100000L

timeline_reset <- function() {
  state$timeline <- new.env(hash = TRUE, parent = emptyenv())  # "<ec>" -> record
  state$timeline_order <- integer(0)  # execution counts held, oldest first
  state$timeline_held <- 0
  state$complete_after <- NULL
}

timeline_add <- function(ec, kind, names, changes = NULL) {
  if (is.na(ec) || !length(names)) return(invisible())
  key <- as.character(ec)
  cell <- state$timeline[[key]]
  if (is.null(cell)) {
    cell <- list(parts = list(), changes = list(), too_many = FALSE)
    state$timeline_order <- c(state$timeline_order, ec)
  }
  if (cell$too_many) return(invisible())
  if (length(names) > TIMELINE_NAMES) {
    state$timeline_held <- state$timeline_held - cell_held(cell)
    cell <- list(parts = list(), changes = list(), too_many = TRUE)
  } else {
    cell$parts[[length(cell$parts) + 1L]] <- list(kind = kind, names = names)
    state$timeline_held <- state$timeline_held + length(names)
    for (name in names(changes)) {
      if (length(changes[[name]])) {
        if (is.null(cell$changes[[name]])) state$timeline_held <- state$timeline_held + 1
        cell$changes[[name]] <- changes[[name]]
      }
    }
  }
  assign(key, cell, envir = state$timeline)
  timeline_trim()
}

cell_held <- function(cell) {
  sum(vapply(cell$parts, function(p) length(p$names), 0)) + length(cell$changes)
}

timeline_trim <- function() {
  while (length(state$timeline_order) &&
         (length(state$timeline_order) > TIMELINE_CELLS ||
          state$timeline_held > TIMELINE_NAMES)) {
    ec <- state$timeline_order[1L]
    key <- as.character(ec)
    state$timeline_held <- state$timeline_held - cell_held(state$timeline[[key]])
    rm(list = key, envir = state$timeline)
    state$timeline_order <- state$timeline_order[-1L]
    if (is.null(state$complete_after) || ec > state$complete_after) state$complete_after <- ec
  }
}

# list(entries, total, complete_after): the last `limit` entries of `name`, oldest first.
timeline_of <- function(name, limit) {
  entries <- list()
  complete_after <- state$complete_after
  for (ec in state$timeline_order) {
    cell <- state$timeline[[as.character(ec)]]
    if (cell$too_many) {
      complete_after <- ec  # what that execution did to `name` cannot be told
      entries <- list()
      next
    }
    kinds <- unlist(lapply(cell$parts, function(p) if (name %in% p$names) p$kind))
    if (!length(kinds)) next
    # new and modified at once is new; removed after either (a delete) is its own entry.
    kept <- unique(kinds[kinds != "modified" | !("new" %in% kinds)])
    for (kind in kept) {
      changes <- if (kind == "modified" && !is.null(cell$changes[[name]])) cell$changes[[name]]
                 else character(0)
      entries[[length(entries) + 1L]] <- list(execution_count = ec, change = kind,
                                              changes = I(changes))
    }
  }
  total <- length(entries)
  list(entries = utils::tail(entries, limit), total = total, complete_after = complete_after)
}

timeline_op <- function(fields, ec) {
  name <- fields$name
  observe(ls(globalenv(), all.names = TRUE, sorted = FALSE), ec, DEFAULT_GUARD_MS)
  found <- timeline_of(name, fields$limit)
  bound <- exists(name, envir = globalenv(), inherits = FALSE)
  if (!found$total && !bound) return(refusal("not_found", paste0("Variable not found: ", name)))
  list(timeline = list(name = name, total = found$total, limit = fields$limit,
                       entries = I(found$entries), complete_after = found$complete_after,
                       exists = bound))
}
