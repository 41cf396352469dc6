// WorkingSetIndex module.
