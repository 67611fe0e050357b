enum GradebookSimulatorPlaceholder {}
