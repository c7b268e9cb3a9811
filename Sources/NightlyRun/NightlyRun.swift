// NightlyRun layer
