-- SPDX-License-Identifier: GPL-3.0-or-later
-- A rule's least step in standard deviations of the commits around it (NULL: the default).
ALTER TABLE alert_rule ADD COLUMN min_effect DOUBLE PRECISION;
