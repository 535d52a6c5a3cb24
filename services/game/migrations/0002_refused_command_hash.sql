-- The hash of a refused command's body, so that its id reused for another command
-- is refused as such, not answered with the first command's refusal.

ALTER TABLE refused_commands ADD COLUMN command_hash text;
