# Filters of the `rows`, `profile` and `code` operations: a condition or an and/or tree
# (check.R checked its shape) as R code, one text for both uses: the probe evaluates it
# (parsed, with the columns it names in a data mask whose parent is base) and `code` shows
# it inside dplyr::filter() -- so the rows the explorer shows and the rows the code keeps
# are those of one expression.
#
# Missing values match only `isnull` (SQL's rule, written out in the code): every other
# condition, negated ones included, starts with !is.na(<column>). A value is read as its
# column's type (a number, true/false, text, a level, a date, a date-time); one that does
# not fit is refused naming the column and its class.

DATETIME_FORMATS <- c("%Y-%m-%dT%H:%M:%OS", "%Y-%m-%d %H:%M:%OS", "%Y-%m-%dT%H:%M",
                      "%Y-%m-%d %H:%M", "%Y-%m-%d", "%Y/%m/%d %H:%M:%OS", "%Y/%m/%d")

# How a column compares: number, boolean, string, factor, ordered, date, datetime, other.
column_family <- function(col) {
  if (is.factor(col)) return(if (is.ordered(col)) "ordered" else "factor")
  if (inherits(col, "Date")) return("date")
  if (inherits(col, "POSIXct")) return("datetime")
  if (is.object(col)) return("other")
  if (is.logical(col)) return("boolean")
  if (is.numeric(col)) return("number")
  if (is.character(col)) return("string")
  "other"
}

# A column as R code refers to it: its name, backquoted unless syntactic.
column_ref <- function(name) {
  if (make.names(name) == name && !grepl("^\\.\\.[0-9]", name)) name
  else paste0("`", gsub("`", "\\`", gsub("\\", "\\\\", name, fixed = TRUE), fixed = TRUE), "`")
}

# The shortest text R reads back as the same double.
num_literal <- function(v) {
  if (is.integer(v)) return(paste0(v, "L"))
  if (is.nan(v)) return("NaN")
  if (is.infinite(v)) return(if (v > 0) "Inf" else "-Inf")
  for (digits in 15:17) {
    text <- sprintf(paste0("%.", digits, "g"), v)
    if (as.numeric(text) == v) break
  }
  if (v < 0) paste0("(", text, ")") else text
}

str_literal <- function(s) enc2utf8(encodeString(enc2utf8(s), quote = "\""))

# One value of a condition as an R literal of the column's type (bad_request otherwise).
value_literal <- function(value, col, column, family) {
  misfit <- function() {
    shown <- if (is.list(value)) "[...]" else if (is.null(value)) "null"
             else py_repr(if (is.character(value)) value else format(value), 40L)
    bad_request(paste0("filter value ", shown, " does not fit column ", column, " (",
                       class(col)[1L], ")"))
  }
  if (is.null(value) || is.list(value) || length(value) != 1L || is.na(value)) misfit()
  text <- if (is.character(value)) value else NULL
  switch(family,
    number = {
      v <- if (is.numeric(value)) as.numeric(value)
           else if (!is.null(text)) suppressWarnings(as.numeric(trimws(text))) else NA
      if (is.na(v)) misfit()
      num_literal(v)
    },
    boolean = {
      v <- if (is.logical(value)) value
           else if (!is.null(text) && tolower(text) %in% c("true", "false")) tolower(text) == "true"
           else misfit()
      if (v) "TRUE" else "FALSE"
    },
    date = {
      if (is.null(text)) misfit()
      v <- tryCatch(as.Date(trimws(text), tryFormats = c("%Y-%m-%d", "%Y/%m/%d")),
                    error = function(e) NA)
      if (is.na(v)) misfit()
      paste0("as.Date(", str_literal(format(v, "%Y-%m-%d")), ")")
    },
    datetime = {
      if (is.null(text)) misfit()
      tz <- attr(col, "tzone")
      tz <- if (is.null(tz)) "" else tz[1L]
      v <- tryCatch(as.POSIXct(trimws(text), tz = tz, tryFormats = DATETIME_FORMATS),
                    error = function(e) NA)
      if (is.na(v)) misfit()
      shown <- format(v, if (as.numeric(v) %% 1 == 0) "%Y-%m-%d %H:%M:%S"
                         else "%Y-%m-%d %H:%M:%OS6", tz = tz)
      paste0("as.POSIXct(", str_literal(shown), ", tz = ", str_literal(tz), ")")
    },
    ordered = {
      if (is.null(text) && !is.numeric(value)) misfit()
      label <- if (is.null(text)) as.character(value) else text
      if (!(label %in% levels(col))) {
        bad_request(paste0("filter value ", py_repr(label, 40L), " is not a level of column ",
                           column, " (ordered)"))
      }
      str_literal(label)
    },
    {  # string, factor, other: text
      if (is.logical(value)) misfit()
      str_literal(if (is.null(text)) as.character(value) else text)
    })
}

# A condition as R code on `ref` (the column's reference), missing values excluded.
condition_code <- function(cond, ref, col, column) {
  op <- cond$op
  family <- column_family(col)
  if (op == "isnull") return(paste0("is.na(", ref, ")"))
  present <- paste0("!is.na(", ref, ")")
  if (op == "notnull") return(present)
  value <- cond$value
  as_text <- if (family == "string") ref else paste0("as.character(", ref, ")")
  folded <- paste0("tolower(", ref, ")")
  caseless <- !isTRUE(cond$case)
  one <- function(v) value_literal(v, col, column, family)
  text_value <- function() value  # check.R: text for the text operators
  # Comparisons of order on an unordered factor (or another class) compare the text.
  ordered_ref <- if (family %in% c("factor", "other")) as_text else ref
  if (op %in% c("lt", "le", "gt", "ge", "between", "not_between") && family == "boolean") {
    bad_request(paste0("filter ", op, " does not apply to column ", column, " (logical)"))
  }
  body <- switch(op,
    eq = paste(ref, "==", one(value)),
    ne = paste(ref, "!=", one(value)),
    lt = paste(ordered_ref, "<", one(value)),
    le = paste(ordered_ref, "<=", one(value)),
    gt = paste(ordered_ref, ">", one(value)),
    ge = paste(ordered_ref, ">=", one(value)),
    between = , not_between = {
      low <- one(value[[1L]])
      high <- one(value[[2L]])
      if (op == "between") paste0(ordered_ref, " >= ", low, " & ", ordered_ref, " <= ", high)
      else paste0("(", ordered_ref, " < ", low, " | ", ordered_ref, " > ", high, ")")
    },
    `in` = , not_in = {
      set <- paste0("c(", paste(vapply(value, one, ""), collapse = ", "), ")")
      if (op == "in") paste(ref, "%in%", set) else paste0("!(", ref, " %in% ", set, ")")
    },
    contains = , not_contains = {
      needle <- text_value()
      found <- if (caseless) paste0("grepl(", str_literal(tolower(needle)), ", ", folded,
                                    ", fixed = TRUE)")
               else paste0("grepl(", str_literal(needle), ", ", ref, ", fixed = TRUE)")
      if (op == "contains") found else paste0("!", found)
    },
    starts_with = , ends_with = {
      needle <- text_value()
      f <- if (op == "starts_with") "startsWith" else "endsWith"
      if (caseless) paste0(f, "(", folded, ", ", str_literal(tolower(needle)), ")")
      else paste0(f, "(", as_text, ", ", str_literal(needle), ")")
    },
    regex = {
      pattern <- text_value()
      problem <- tryCatch({
        grepl(pattern, "", ignore.case = caseless)
        NULL
      }, warning = function(w) conditionMessage(w), error = function(e) conditionMessage(e))
      if (!is.null(problem)) {
        bad_request(paste0("filter regex ", py_repr(pattern, 60L), " is not a valid R ",
                           "regular expression: ", cut_text(problem, 120L)$text))
      }
      paste0("grepl(", str_literal(pattern), ", ", ref,
             if (caseless) ", ignore.case = TRUE", ")")
    },
    empty = paste0(as_text, " == \"\""),
    not_empty = paste0(as_text, " != \"\""),
    is_true = , is_false = {
      if (family != "boolean") {
        bad_request(paste0("filter ", op, " needs a logical column; ", column, " is ",
                           class(col)[1L]))
      }
      if (op == "is_true") ref else paste0("!", ref)
    },
    bad_request(paste0("filter op ", py_repr(op), " is not supported by the R probe")))
  paste(present, "&", body)
}

# The filter (a condition or a tree) as R code; `resolve(column)` gives list(name, col).
filter_code <- function(node, resolve) {
  combinator <- intersect(names(node), c("and", "or"))
  if (length(combinator)) {
    parts <- vapply(node[[combinator[1L]]], filter_code, "", resolve = resolve)
    if (length(parts) == 1L) return(parts)
    return(paste0("(", parts, ")", collapse = if (combinator[1L] == "and") " & " else " | "))
  }
  found <- resolve(node$column)
  condition_code(node, column_ref(found$name), found$col, found$name)
}

# The columns a filter names (names or positions, as given).
filter_columns <- function(node) {
  combinator <- intersect(names(node), c("and", "or"))
  if (length(combinator)) return(unlist(lapply(node[[combinator[1L]]], filter_columns)))
  list(node$column)
}

# The functions a filter's code calls: nothing else is evaluated, whatever the text.
FILTER_CALLS <- c("(", "!", "&", "|", "==", "!=", "<", "<=", ">", ">=", "%in%", "-", "c",
                  "is.na", "grepl", "tolower", "startsWith", "endsWith", "as.character",
                  "as.Date", "as.POSIXct")

# The filter's code parsed (one expression, calling FILTER_CALLS only).
filter_expression <- function(code) {
  parsed <- parse(text = code, keep.source = FALSE)
  calls <- function(e) {
    if (!is.call(e)) return(character(0))
    head <- e[[1L]]
    c(if (is.symbol(head)) as.character(head) else "<call>",
      unlist(lapply(as.list(e)[-1L], calls)))
  }
  used <- if (length(parsed) == 1L) calls(parsed[[1L]]) else "<several>"
  if (!all(used %in% FILTER_CALLS)) stop("the filter's code calls ", setdiff(used, FILTER_CALLS)[1L])
  parsed[[1L]]
}

# The rows where the filter's code holds (TRUE/FALSE, never NA), `columns` a named list.
filter_mask <- function(code, columns, n) {
  mask <- eval(filter_expression(code), columns, baseenv())
  if (!is.logical(mask) || length(mask) != n) {
    stop("the filter did not give one TRUE or FALSE a row", call. = FALSE)
  }
  !is.na(mask) & mask
}
