0 1 0.5 'third_house | price:.53 sqft:.32 age:.87 1924
