-- SPDX-License-Identifier: GPL-3.0-or-later
-- An alert's intervals: the change's and the first bad commit's 95 % intervals (JSON,
-- app::alerts::Evidence); NULL on alerts found before they were measured.
ALTER TABLE alert ADD COLUMN evidence TEXT;
