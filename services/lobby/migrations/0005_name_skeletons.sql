-- Names are compared by skeleton (services/lobby/names.py: NFKC, case folded,
-- look-alike characters mapped to Latin ones): one registered account per
-- skeleton, and no guest may take a registered skeleton. Rows from before get
-- their lower-cased name, which is their skeleton for plain ASCII names.
ALTER TABLE accounts ADD COLUMN name_skeleton text;
UPDATE accounts SET name_skeleton = lower(name);
ALTER TABLE accounts ALTER COLUMN name_skeleton SET NOT NULL;
DROP INDEX accounts_registered_name;
CREATE UNIQUE INDEX accounts_registered_skeleton ON accounts (name_skeleton)
    WHERE password_hash IS NOT NULL;
