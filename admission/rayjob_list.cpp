// placeholder: replaced by the RayJob list translation used by the reaper
