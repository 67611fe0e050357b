// Registration
