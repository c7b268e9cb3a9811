// PlanStore layer
