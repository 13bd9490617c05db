-1 0.5 |empty |b x

1 |
1 'tag |a
|a x:2 y |b z:3
