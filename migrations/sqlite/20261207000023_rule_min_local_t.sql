-- SPDX-License-Identifier: GPL-3.0-or-later
-- A rule's least Welch t of a step over the 12 commits either side (NULL: the default).
ALTER TABLE alert_rule ADD COLUMN min_local_t REAL;
