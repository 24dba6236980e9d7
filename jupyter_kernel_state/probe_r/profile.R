# The R probe's `profile` operation: the statistics of a table's columns (data.frames,
# tibbles, matrices, vectors), on the rows the view's filter keeps, with the same
# definitions as the Python probe (probe/windows/statistics.py):
#
# * families: number (integer and double vectors), string (character), category
#   (factors), boolean (logical), datetime (Date, POSIXct), other;
# * count (present values) and null_count (NA, NaN) exact; Inf and -Inf are counted but
#   left out of every statistic of a number column;
# * quantiles by linear interpolation (quantile(type = 7): numpy's default), the median
#   the 50 % quantile, std with n - 1 (sd());
# * a histogram of equal-width bins over [min, max] (edges low + i * step, every bin
#   half-open but the last), its bin count by Freedman-Diaconis (width 2 IQR / n^(1/3)),
#   by Sturges (log2 n + 1) when the IQR is 0, between 1 and MAX_BINS;
# * the most frequent values by count, ties in the order the values first appear;
#   factors count the levels used; `other` is the present values not listed;
# * past `sample_rows` rows (after the filter), every statistic but count and null_count
#   comes from a fixed sample of that many rows (approximate: true), its counts scaled to
#   the column's. The sample is the rows whose key frac(i * golden ratio) is among the
#   `sample_rows` smallest: the same rows call after call, chosen without R's random
#   number generator (.Random.seed is neither created nor moved).
# Each column runs under `column_ms`; columns the call's budget does not reach are
# counted (columns_cut), never half listed.

MAX_BINS <- 50L
QUANTILES <- c(5, 25, 75, 95)
GOLDEN <- (sqrt(5) - 1) / 2

profile_op <- function(fields, ec) {
  started <- now_ms()
  name <- fields$name
  t <- table_named(name, "profiles")
  if (!is.null(t$refusal)) return(t$refusal)
  view <- fields$view
  prepared <- tryCatch(list(positions = positions_of(fields, length(t$names)),
                            plan = view_plan(t, list(sort = list(), filter = view$filter))),
                       ks_bad_request = function(e) e)
  if (inherits(prepared, "ks_bad_request")) {
    return(refusal("bad_request", conditionMessage(prepared)))
  }
  rows <- NULL
  if (!is.null(prepared$plan$filter)) {
    made <- view_rows(name, t, prepared$plan, ec, fields$filter_ms)
    if (!is.null(made$refusal)) return(made$refusal)
    rows <- made$rows
  }
  kept <- if (is.null(rows)) t$n else length(rows)
  sample <- if (kept > fields$sample_rows) sample_positions(kept, fields$sample_rows) else NULL
  texts <- new.env(parent = emptyenv())
  texts$limit <- fields$value_chars
  texts$truncated <- 0L
  columns <- list()
  cut <- 0L
  positions <- prepared$positions
  for (i in seq_along(positions)) {
    if (now_ms() - started > fields$budget_ms) {
      cut <- length(positions) - i + 1L
      break
    }
    p <- positions[i]
    columns[[length(columns) + 1L]] <- profile_column(t, p, rows, sample, fields, texts)
  }
  list(profile = list(
    name = name, type = type_name(t$x), kind = t$kind, total_rows = t$n,
    filtered_rows = if (is.null(rows)) NULL else kept, columns_total = length(t$names),
    columns = I(columns), columns_cut = cut, sampled = !is.null(sample),
    sample_rows = if (is.null(sample)) NULL else fields$sample_rows,
    values_truncated = texts$truncated,
    view = c(view_json(view), list(columns = I(positions)))
  ))
}

# `k` of the positions 1 to `n`, in order: those whose golden-ratio key is smallest.
# The keys are spread evenly (a Weyl sequence: about n * a of them lie under a, give or
# take a few dozen), so the k smallest are found among those under (k + 64) / n.
sample_positions <- function(n, k) {
  keys <- seq_len(n) * GOLDEN
  keys <- keys - floor(keys)  # the fractional part (faster than %% 1)
  near <- which(keys < (k + 64) / n)
  if (length(near) < k) near <- seq_len(n)  # never, for these keys; exact all the same
  sort(near[order(keys[near], method = "radix")[seq_len(k)]], method = "radix")
}

profile_family <- function(col) {
  switch(column_family(col), number = "number", boolean = "boolean", string = "string",
         factor = , ordered = "category", date = , datetime = "datetime", "other")
}

profile_column <- function(t, p, rows, sample, fields, texts) {
  entry <- list(name = t$names[p + 1], position = p, dtype = NULL, family = "other",
                count = NULL, null_count = NULL, approximate = FALSE, error = NULL)
  filled <- new.env(parent = emptyenv())  # what is known stays when a later step fails
  filled$entry <- entry
  r <- guarded(function() {
    col <- t$column(p + 1)
    e <- filled$entry
    e$dtype <- if (is.factor(col)) "factor" else class(col)[1L]
    if (!is.null(rows)) col <- col[rows]
    e$family <- profile_family(col)
    missing <- is.na(col)
    nulls <- sum(missing)
    count <- length(col) - nulls
    e$count <- count
    e$null_count <- nulls
    filled$entry <- e
    data <- if (is.null(sample)) col else col[sample]
    present <- data[!is.na(data)]
    scale <- if (is.null(sample)) 1 else if (length(present)) count / length(present) else 0
    stats <- switch(e$family,
      number = number_stats(present, scale),
      string = text_stats(present, present, fields$top, count, scale, texts),
      category = text_stats(as.integer(present), attr(present, "levels"), fields$top, count,
                            scale, texts),
      boolean = {
        true <- round(sum(present) * scale)
        list(true = true, false = max(0, count - true))
      },
      datetime = time_stats(present),
      NULL)
    e <- c(e, stats)
    e$approximate <- !is.null(sample) && count > 0
    e
  }, fields$column_ms)
  if (!is.null(r$error)) {
    out <- filled$entry
    out$error <- paste("profiling", r$error)
    return(out)
  }
  r$value
}

# -- numbers ----------------------------------------------------------------------------------

bins_for <- function(n, q25, q75, low, high) {
  if (n <= 0) return(0L)
  span <- high - low
  iqr <- q75 - q25
  wanted <- if (iqr > 0 && span > 0) span / (2 * iqr / n^(1 / 3)) else log2(n) + 1
  if (is.na(wanted) || !(wanted <= MAX_BINS)) return(MAX_BINS)
  max(1L, as.integer(ceiling(wanted)))
}

edges_for <- function(low, high, bins) {
  low <- as.numeric(low)
  high <- as.numeric(high)
  if (low == high) {
    low <- low - 0.5
    high <- high + 0.5
  }
  if (!is.finite(high - low)) return(NULL)
  step <- (high - low) / bins
  c((seq_len(bins) - 1) * step + low, high)
}

number_stats <- function(present, scale) {
  x <- present[is.finite(present)]
  n <- length(x)
  if (!n) {
    return(list(min = NULL, max = NULL, mean = NULL, median = NULL, std = NULL,
                quantiles = list(`5` = NULL, `25` = NULL, `75` = NULL, `95` = NULL),
                histogram = list(edges = I(list()), counts = I(list()))))
  }
  f <- sort(as.numeric(x), method = "radix")
  qs <- stats::quantile(f, c(QUANTILES[1:2], 50, QUANTILES[3:4]) / 100, type = 7L,
                        names = FALSE)
  low <- min(x)
  high <- max(x)
  bins <- bins_for(n, qs[2L], qs[4L], as.numeric(low), as.numeric(high))
  edges <- edges_for(low, high, bins)
  hist <- if (is.null(edges)) list(edges = I(list()), counts = I(list())) else {
    starts <- findInterval(edges[-length(edges)], f, left.open = TRUE)
    counts <- diff(c(starts, n))
    list(edges = I(edges), counts = I(round(counts * scale)))
  }
  quantiles <- as.list(qs[-3L])
  names(quantiles) <- as.character(QUANTILES)
  list(min = low, max = high, mean = mean(f), median = qs[3L],
       std = if (n > 1L) stats::sd(f) else NULL, quantiles = quantiles, histogram = hist)
}

# -- values by count --------------------------------------------------------------------------

# `codes`: the present values (or a factor's codes); `labels`: what a code stands for
# (the values themselves for text).
text_stats <- function(codes, labels, top, present, scale, texts) {
  u <- unique(codes)  # first appearance order
  counts <- tabulate(match(codes, u), length(u))
  best <- utils::head(order(-counts, method = "radix"), top)
  label_of <- if (is.character(labels) && identical(labels, codes)) function(i) u[i]
              else function(i) labels[u[i]]
  listed <- lapply(best, function(i) {
    text <- cut_text(label_of(i), texts$limit)
    if (text$truncated) texts$truncated <- texts$truncated + 1L
    list(value = text$text, count = round(counts[i] * scale))
  })
  words <- if (is.character(codes)) codes else labels[codes]
  empty <- sum(words == "")
  list(distinct = length(u), empty = round(empty * scale), top = I(listed),
       other = max(0, present - sum(vapply(listed, function(e) e$count, 0))))
}

# -- dates and times --------------------------------------------------------------------------

iso_time <- function(x) {
  if (inherits(x, "Date")) {
    days <- as.numeric(x)
    if (days == floor(days)) return(format(x, "%Y-%m-%d"))
    # a median halfway between two days: a time of day, and still no time zone
    return(format(as.POSIXct(days * 86400, origin = "1970-01-01", tz = "UTC"),
                  "%Y-%m-%dT%H:%M:%S", tz = "UTC"))
  }
  tz <- attr(x, "tzone")
  tz <- if (is.null(tz)) "" else tz[1L]
  seconds <- as.numeric(x)
  text <- format(x, if (seconds == floor(seconds)) "%Y-%m-%dT%H:%M:%S" else "%Y-%m-%dT%H:%M:%OS6",
                 tz = tz)
  if (nzchar(tz)) {
    offset <- format(x, "%z", tz = tz)
    text <- paste0(text, substr(offset, 1L, 3L), ":", substr(offset, 4L, 5L))
  }
  text
}

time_stats <- function(present) {
  if (!length(present)) return(list(min = NULL, max = NULL, median = NULL))
  ordered <- sort(present, method = "radix")
  n <- length(ordered)
  mid <- if (n %% 2L == 1L) ordered[(n + 1L) %/% 2L] else {
    # halfway between the middle two, in the class's own unit (a Date's half day kept:
    # `+.Date` would round it away)
    lower <- as.numeric(ordered[n %/% 2L])
    structure(lower + (as.numeric(ordered[n %/% 2L + 1L]) - lower) / 2,
              class = oldClass(ordered), tzone = attr(ordered, "tzone"))
  }
  list(min = iso_time(ordered[1L]), max = iso_time(ordered[n]), median = iso_time(mid))
}
