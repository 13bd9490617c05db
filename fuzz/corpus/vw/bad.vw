1 -2 |a x
1 |a x:nan
1 |a :3
1 |a:x y
1 2
