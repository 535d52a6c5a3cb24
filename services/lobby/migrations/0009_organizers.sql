-- Organizers: the role that may create tournaments (operators may too). Checked on every
-- organizer request, as the operator role is, so taking it away takes effect at once.
ALTER TABLE accounts DROP CONSTRAINT accounts_role_check;
ALTER TABLE accounts ADD CONSTRAINT accounts_role_check
    CHECK (role IN ('player', 'operator', 'organizer'));
