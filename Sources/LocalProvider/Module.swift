// LocalProvider module.
