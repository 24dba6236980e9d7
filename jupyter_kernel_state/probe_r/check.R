# The R probe's one validator, driven by the protocol's own spec.
#
# The server ships probe/protocol.py's OPERATIONS as JSON at install (service/languages/
# r.py: spec_json); check_request() reads every request against it with the rules of
# protocol.check: an unknown operation, an unknown field or a value of the wrong type is
# refused; null for a nullable field is its default; out of bounds, fields marked `clamp`
# are brought within their bounds and the others refused with the bounds in the message
# (the same words as the Python probe's). Handlers get every field filled.
# A refusal has one shape (refusal(), as protocol.refusal).

# The spec: list(operations = list(<op> = list(<field>...)), constants = list(...),
# refusals = <kinds>), set by install().
spec_of <- function() state$spec

refusal <- function(kind, message, ...) {
  if (!(kind %in% state$spec$refusals)) stop("unknown refusal kind: ", kind)
  out <- list(ok = FALSE)
  out[[kind]] <- TRUE
  out$error <- message
  c(out, list(...))
}

# A BadRequest: its message is the user's 400.
bad_request <- function(message) {
  stop(structure(class = c("ks_bad_request", "error", "condition"),
                 list(message = message, call = NULL)))
}

# "{:,}" of Python: 1,000 and 4,611,686,018,427,387,904.
commas <- function(n) formatC(as.numeric(n), format = "f", digits = 0L, big.mark = ",")

# Python's repr of text (what the Python probe's messages quote), cut like them.
py_repr <- function(x, n = 60L) {
  text <- if (is.character(x) && length(x) == 1L && !is.na(x)) {
    if (grepl("'", x, fixed = TRUE) && !grepl("\"", x, fixed = TRUE)) {
      paste0("\"", x, "\"")
    } else {
      paste0("'", gsub("'", "\\'", gsub("\\", "\\\\", x, fixed = TRUE), fixed = TRUE), "'")
    }
  } else if (is.null(x)) {
    "None"
  } else if (is.logical(x) && length(x) == 1L) {
    if (isTRUE(x)) "True" else "False"
  } else if (is.numeric(x) && length(x) == 1L) {
    as.character(x)
  } else {
    class(x)[1L]
  }
  substr(text, 1L, n)
}

# An integer of the request: JSON integers arrive as R integers, or as doubles past R's
# integer range; a double within that range was written 1.0 or 1e3, which Python's
# json.loads reads as a float (refused there too).
is_json_int <- function(x) {
  (is.integer(x) && length(x) == 1L && !is.na(x)) ||
    (is.double(x) && length(x) == 1L && is.finite(x) && x == floor(x) &&
       abs(x) > .Machine$integer.max)
}

is_text <- function(x) is.character(x) && length(x) == 1L && !is.na(x)

range_text <- function(low, high, integer = TRUE) {
  if (!is.null(low) && !is.null(high)) return(paste0("from ", commas(low), " to ", commas(high)))
  if (!is.null(low)) return(paste0(if (integer) "\u2265 " else "at least ", commas(low)))
  if (!is.null(high)) return(paste0(if (integer) "\u2264 " else "at most ", commas(high)))
  ""
}

# A field's bounds: numbers, or the name of a field checked before it.
bound_of <- function(b, filled) {
  if (is.null(b)) return(NULL)
  if (is.character(b)) filled[[b]] else b
}

check_int <- function(f, value, filled) {
  low <- bound_of(f$min, filled)
  high <- bound_of(f$max, filled)
  problem <- trimws(paste(f$name, "must be an integer", range_text(low, high)), "right")
  if (!is_json_int(value)) bad_request(problem)
  if (!is.null(low) && value < low) {
    if (!isTRUE(f$clamp)) bad_request(problem)
    return(low)
  }
  if (!is.null(high) && value > high) {
    if (!isTRUE(f$clamp)) bad_request(problem)
    return(high)
  }
  value
}

check_size <- function(f, n, filled, what) {
  low <- bound_of(f$min, filled)
  high <- bound_of(f$max, filled)
  if ((!is.null(low) && n < low) || (!is.null(high) && n > high)) {
    bad_request(paste(f$name, "must hold", range_text(low, high, FALSE), what))
  }
}

check_list <- function(f, value, filled, what) {
  # An array arrives as an unnamed list (an object as a named one).
  if (!is.list(value) || (!is.null(names(value)) && length(value))) {
    bad_request(paste(f$name, "must be a list of", what))
  }
  check_size(f, length(value), filled, what)
  unname(value)
}

FIELD_TYPES <- list(
  int = check_int,
  bool = function(f, value, filled) {
    if (!is.logical(value) || length(value) != 1L || is.na(value)) {
      bad_request(paste(f$name, "must be true or false"))
    }
    value
  },
  text = function(f, value, filled) {
    if (!is_text(value)) bad_request(paste(f$name, "must be text"))
    check_size(f, nchar(value, type = "chars"), filled, "characters")
    value
  },
  choice = function(f, value, filled) {
    if (!is_text(value) || !(value %in% unlist(f$choices))) {
      bad_request(paste(f$name, "must be one of", paste(unlist(f$choices), collapse = ", ")))
    }
    value
  },
  order = function(f, value, filled) {
    ok <- is_text(value) && {
      at <- regexpr(":", value, fixed = TRUE)
      key <- if (at > 0L) substr(value, 1L, at - 1L) else value
      direction <- if (at > 0L) substr(value, at + 1L, nchar(value)) else NULL
      key %in% unlist(f$choices) &&
        (is.null(direction) || direction %in% unlist(spec_of()$constants$SORT_DIRECTIONS))
    }
    if (!ok) {
      bad_request(paste0(f$name, " must be one of ", paste(unlist(f$choices), collapse = ", "),
                         ", optionally followed by :asc or :desc"))
    }
    value
  },
  choices = function(f, value, filled) {
    items <- check_list(f, value, filled, "choices")
    if (!all(vapply(items, function(x) is_text(x) && x %in% unlist(f$choices), TRUE))) {
      bad_request(paste(f$name, "must list some of", paste(unlist(f$choices), collapse = ", ")))
    }
    unlist(items)
  },
  name = function(f, value, filled) {
    # What an R name may be is the server's check_name; here: text of 1 to 256 characters.
    if (!is_text(value)) bad_request(paste0("Invalid variable name: ", py_repr(value)))
    check_size(f, nchar(value, type = "chars"), filled, "characters")
    value
  },
  names = function(f, value, filled) {
    items <- check_list(f, value, filled, "names")
    as.character(unlist(Filter(is_text, items)))
  },
  path = function(f, value, filled) {
    items <- check_list(f, value, filled, "access keys")
    if (!all(vapply(items, is_text, TRUE))) {
      bad_request(paste(f$name, "must be a list of access keys (text)"))
    }
    as.character(unlist(items))
  },
  positions = function(f, value, filled) {
    items <- check_list(f, value, filled, "column positions")
    top <- spec_of()$constants$MAX_COLUMN_POSITION
    if (!all(vapply(items, function(x) is_json_int(x) && x >= 0 && x <= top, TRUE))) {
      bad_request(paste(f$name, "must be a list of column positions (integers from 0)"))
    }
    vapply(items, as.numeric, 0)
  },
  view = function(f, value, filled) check_view(value)
)

# (op, fields) of a request, every field of the operation filled; a BadRequest otherwise.
# `ec` (the last user execution count, which the R probe cannot read) travels beside the
# protocol's fields and is not one of them.
check_request <- function(request) {
  if (!is.list(request) || (length(request) && is.null(names(request)))) {
    bad_request("A request is a JSON object")
  }
  op <- request$op
  operations <- spec_of()$operations
  if (!is_text(op) || is.null(operations[[op]])) {
    bad_request(paste0("Unknown operation ", py_repr(op, 40L), ": one of ",
                       paste(names(operations), collapse = ", ")))
  }
  given <- request[setdiff(names(request), c("op", "ec"))]
  list(op = op, fields = fill_fields(op, operations[[op]], given))
}

fill_fields <- function(op, fields, given) {
  known <- vapply(fields, function(f) f$name, "")
  unknown <- setdiff(names(given), known)
  if (length(unknown)) {
    bad_request(paste0("Invalid ", op, " request: unknown field ", py_repr(unknown[1L]),
                       " (fields: ", if (length(known)) paste(known, collapse = ", ")
                       else "none", ")"))
  }
  out <- list()
  for (f in fields) {
    present <- f$name %in% names(given)
    value <- if (present) given[[f$name]] else NULL
    if (!present || (is.null(value) && isTRUE(f$nullable))) {
      if (isTRUE(f$required)) bad_request(paste0("Invalid ", op, " request: ", f$name,
                                                 " is required"))
      out[f$name] <- list(f$default)
      next
    }
    checked <- tryCatch(FIELD_TYPES[[f$type]](f, value, out), ks_bad_request = function(e) e)
    if (inherits(checked, "ks_bad_request")) {
      message <- conditionMessage(checked)
      bad_request(if (startsWith(message, "Invalid")) message
                  else paste0("Invalid ", op, " request: ", message))
    }
    out[f$name] <- list(checked)
  }
  out
}

# -- views: the sort and the filter, one structure (protocol.View) ---------------------------

is_object <- function(x) is.list(x) && !is.null(names(x))
is_array <- function(x) is.list(x) && is.null(names(x))
konst <- function(name) spec_of()$constants[[name]]

check_view <- function(value) {
  if (is.null(value)) return(list(sort = list(), filter = NULL))
  if (!is_object(value)) bad_request("view must be an object {\"sort\": [...], \"filter\": ...}")
  unknown <- sort(setdiff(names(value), c("sort", "filter")), method = "radix")
  if (length(unknown)) {
    bad_request(paste0("view has no field ", py_repr(unknown[1L], 1000L), " (sort, filter)"))
  }
  node <- check_node(value$filter, 0L)
  most <- konst("MAX_FILTER_CONDITIONS")
  if (!is.null(node) && count_conditions(node) > most) {
    bad_request(paste0("filter: at most ", most, " conditions in all, not ",
                       commas(count_conditions(node))))
  }
  list(sort = check_sort_keys(value$sort), filter = node)
}

check_sort_keys <- function(keys) {
  if (is.null(keys)) return(list())
  if (!is_array(keys)) bad_request("view sort must be a list of {\"column\", \"desc\"}")
  most <- konst("MAX_SORT_KEYS")
  if (length(keys) > most) {
    bad_request(paste0("sorting by ", commas(length(keys)), " columns is not supported: ",
                       "at most ", most, " sort keys"))
  }
  lapply(keys, function(k) {
    if (!is_object(k) || !all(names(k) %in% c("column", "desc"))) {
      bad_request("a sort key is an object {\"column\": <name or position>, \"desc\": bool}")
    }
    desc <- if (is.null(k$desc)) FALSE else k$desc
    if (!is.logical(desc) || length(desc) != 1L || is.na(desc)) {
      bad_request("sort desc must be true or false")
    }
    list(column = check_column(k$column, "sort"), desc = desc)
  })
}

check_column <- function(column, where) {
  most <- konst("MAX_COLUMN_NAME")
  if (is_text(column) && nchar(column) > 0L && nchar(column) <= most) return(column)
  if (is_json_int(column) && column >= 0) return(column)
  bad_request(paste0(where, " needs a column: its name (at most ", commas(most),
                     " characters) or its position"))
}

# A filter node at `depth` (the trees around it): a condition {"column", "op", "value"?,
# "case"?} or a tree {"and": [...]} / {"or": [...]}. The values are read as their
# column's type by filter.R, which knows the column.
check_node <- function(node, depth) {
  if (is.null(node) && depth == 0L) return(NULL)
  if (!is_object(node)) {
    bad_request(paste0("filter must be an object: a condition {\"column\", \"op\", ",
                       "\"value\"} or a tree {\"and\": [...]} / {\"or\": [...]}"))
  }
  joins <- intersect(unlist(konst("FILTER_COMBINATORS")), names(node))
  if (length(joins)) {
    join <- joins[1L]
    if (length(node) != 1L) {
      bad_request("a filter tree is {\"and\": [...]} or {\"or\": [...]}, nothing else")
    }
    if (depth + 1L > konst("MAX_FILTER_DEPTH")) {
      bad_request(paste0("filter: trees at most ", konst("MAX_FILTER_DEPTH"), " deep"))
    }
    items <- node[[join]]
    if (!is_array(items) || !length(items)) {
      bad_request(paste0("filter: \"", join, "\" takes a non-empty list of conditions"))
    }
    if (length(items) > konst("MAX_FILTER_CONDITIONS")) {
      bad_request(paste0("filter: at most ", konst("MAX_FILTER_CONDITIONS"),
                         " conditions in all"))
    }
    out <- list(lapply(items, check_node, depth = depth + 1L))
    names(out) <- join
    return(out)
  }
  check_condition(node)
}

check_condition <- function(node) {
  unknown <- sort(setdiff(names(node), c("column", "op", "value", "case")), method = "radix")
  if (length(unknown)) {
    bad_request(paste0("filter condition has no field ", py_repr(unknown[1L]),
                       " (column, op, value, case; trees: and, or)"))
  }
  ops <- unlist(konst("FILTER_OPS"))
  op <- node$op
  if (!is_text(op) || !(op %in% ops)) {
    bad_request(paste("filter op must be one of", paste(ops, collapse = ", ")))
  }
  column <- check_column(node$column, "filter")
  case_ops <- unlist(konst("CASE_OPS"))
  case <- if (is.null(node$case)) FALSE else node$case
  if ("case" %in% names(node) && !(op %in% case_ops)) {
    bad_request(paste0("filter case applies to the text operators (",
                       paste(case_ops, collapse = ", "), "), not to ", op))
  }
  if (!is.logical(case) || length(case) != 1L || is.na(case)) {
    bad_request("filter case must be true or false")
  }
  out <- list(column = column, op = op)
  if (op %in% unlist(konst("NO_VALUE_OPS"))) return(c(out, list(value = NULL)))
  value <- node$value
  if (op %in% unlist(konst("RANGE_OPS"))) {
    if (!is_array(value) || length(value) != 2L) {
      bad_request(paste0("filter ", op, " needs a value [low, high] (both included)"))
    }
    return(c(out, list(value = lapply(value, check_scalar, op = op))))
  }
  if (op %in% unlist(konst("LIST_OPS"))) {
    most <- konst("MAX_FILTER_ITEMS")
    if (!is_array(value) || !length(value) || length(value) > most) {
      bad_request(paste0("filter ", op, " needs a value: a list of 1 to ", commas(most),
                         " items"))
    }
    return(c(out, list(value = lapply(value, check_scalar, op = op))))
  }
  if (op %in% case_ops) {
    if (!is_text(value) || nchar(value) > konst("MAX_FILTER_VALUE")) {
      bad_request(paste0("filter ", op, " needs a value (text, at most ",
                         commas(konst("MAX_FILTER_VALUE")), " characters)"))
    }
    return(c(out, list(value = value, case = case)))
  }
  c(out, list(value = check_scalar(value, op)))
}

# One value of a condition: text, a finite number or true/false.
check_scalar <- function(value, op) {
  if (is_text(value) && nchar(value) <= konst("MAX_FILTER_VALUE")) return(value)
  if ((is.logical(value) || is.numeric(value)) && length(value) == 1L && is.finite(value)) {
    return(value)
  }
  bad_request(paste0("filter ", op, " needs a value (text of at most ",
                     commas(konst("MAX_FILTER_VALUE")), " characters, a finite number, or ",
                     "true/false)"))
}

count_conditions <- function(node) {
  if (is.null(node)) return(0L)
  join <- intersect(c("and", "or"), names(node))
  if (length(join)) return(sum(vapply(node[[join[1L]]], count_conditions, 0L)))
  1L
}
