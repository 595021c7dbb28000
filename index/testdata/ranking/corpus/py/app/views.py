"""HTTP views of the blog application."""
from flask import Blueprint, abort, jsonify, request

from .models import Post, db

bp = Blueprint("posts", __name__)


@bp.route("/posts")
def list_posts():
    """Return one page of published posts, newest first."""
    page = int(request.args.get("page", 1))
    per_page = min(int(request.args.get("per_page", 20)), 100)
    query = Post.query.filter_by(published=True).order_by(Post.created_at.desc())
    items = query.offset((page - 1) * per_page).limit(per_page).all()
    return jsonify(page=page, items=[p.to_dict() for p in items])


@bp.route("/posts/<int:post_id>", methods=["DELETE"])
def delete_post(post_id):
    post = Post.query.get(post_id)
    if post is None:
        abort(404)
    db.session.delete(post)
    db.session.commit()
    return "", 204
