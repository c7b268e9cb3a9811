-- The optional presentation columns of user_settings (shared/spec/plan-rules.md section
-- 7.1): the language, number format and units of a user's notifications. The APP adds
-- them when it wants localized pushes; plan-regen reads them when they exist and works
-- the same without them. Not plan inputs.
ALTER TABLE user_settings ADD COLUMN IF NOT EXISTS locale text;       -- BCP 47: de-DE (de_DE, any case)
ALTER TABLE user_settings ADD COLUMN IF NOT EXISTS unit_system text;  -- metric or imperial (any case)
