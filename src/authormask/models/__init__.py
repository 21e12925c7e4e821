"""Neural text models: ER-AE (Bo et al. 2021)."""
