-- A tiny database in the style of the EHRSQL 2024 one, invented for the
-- tests: TIMESTAMP(0) columns hold ISO text, lowercase strings, the fixed
-- "now" is 2100-12-31 23:59:00.
CREATE TABLE patients (
    row_id INT NOT NULL PRIMARY KEY,
    subject_id INT NOT NULL UNIQUE,
    gender VARCHAR(5) NOT NULL,
    dob TIMESTAMP(0)
);
INSERT INTO patients VALUES (0, 101, 'f', '2050-03-01 00:00:00');
INSERT INTO patients VALUES (1, 102, 'm', '2060-07-15 00:00:00');
INSERT INTO patients VALUES (2, 103, 'f', NULL);

CREATE TABLE labs (
    row_id INT NOT NULL PRIMARY KEY,
    subject_id INT NOT NULL,
    label VARCHAR(50) NOT NULL,
    valuenum DOUBLE PRECISION,
    charttime TIMESTAMP(0) NOT NULL
);
INSERT INTO labs VALUES (0, 101, 'glucose', 123456789.0, '2100-02-01 08:00:00');
INSERT INTO labs VALUES (1, 101, 'trace', 1e-05, '2100-03-01 08:00:00');
INSERT INTO labs VALUES (2, 102, 'potassium', 2.675, '2099-12-31 08:00:00');
INSERT INTO labs VALUES (3, 102, 'sodium', 0.0005, '2100-06-01 08:00:00');
INSERT INTO labs VALUES (4, 103, 'drift', -0.0001, '2100-12-31 23:59:00');
INSERT INTO labs VALUES (5, 103, 'count', 1, '2098-01-01 00:00:00');

CREATE TABLE vitals (
    row_id INT NOT NULL PRIMARY KEY,
    subject_id INT NOT NULL,
    valuenum DOUBLE PRECISION,
    charttime TIMESTAMP(0) NOT NULL
);
INSERT INTO vitals VALUES (0, 101, 55.0, '2100-01-01 00:00:00');
INSERT INTO vitals VALUES (1, 101, 80.0, '2100-01-01 01:00:00');
INSERT INTO vitals VALUES (2, 102, 120.0, '2100-01-01 02:00:00');
INSERT INTO vitals VALUES (3, 102, 101.0, '2101-01-01 00:00:00');

-- 140 wards w000..w139, to cut at 100 rows.
CREATE TABLE wards (row_id INT NOT NULL PRIMARY KEY, name VARCHAR(10) NOT NULL);
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 139)
INSERT INTO wards SELECT i, printf('w%03d', i) FROM n;
